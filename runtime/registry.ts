/** The tools a runtime knows: definitions checked once at registration, with their validators. */
import { toJsonSchema } from '../sdk/schema.js'
import { allowedCallersOf } from './ptc/callers.js'
import { createValidator, type Validator } from './validate.js'
import type { AnyToolDefinition, JsonSchema } from '../vocabulary/types.js'

export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/

export interface RegisteredTool {
  definition: AnyToolDefinition
  /** JSON Schema of the arguments (zod converted once). */
  parameters: JsonSchema
  validate: Validator
  /** Callable as a native function call only, never from a program (`run_code` itself, `allowedCallers: ['direct']`). */
  nativeOnly: boolean
  /** Callable from a program only (`allowedCallers: ['programmatic']`): refused as a direct call. */
  programOnly: boolean
}

export class ToolRegistry {
  #tools = new Map<string, RegisteredTool>()
  #listeners = new Set<() => void>()
  #programNames: readonly string[] | undefined

  /** Adds or replaces tools. Throws on a definition that is not a tool (API misuse, not model input). */
  register(definitions: readonly AnyToolDefinition[], options: { nativeOnly?: boolean } = {}): void {
    for (const def of definitions) {
      assertDefinition(def)
      const callers = allowedCallersOf(def)
      this.#tools.set(def.name, {
        definition: def,
        parameters: toJsonSchema(def.parameters),
        validate: createValidator(def.parameters),
        nativeOnly: options.nativeOnly === true || !callers.includes('programmatic'),
        programOnly: !callers.includes('direct'),
      })
    }
    this.#changed()
  }

  unregister(names: readonly string[]): void {
    for (const n of names) this.#tools.delete(n)
    this.#changed()
  }

  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name)
  }

  /** Every tool's name, sorted. */
  names(): string[] {
    return [...this.#tools.keys()].sort()
  }

  /** The tools a program may call (`tools.<name>`), sorted. */
  programNames(): string[] {
    return this.names().filter((n) => !this.#tools.get(n)!.nativeOnly)
  }

  /** The same list, frozen and kept until the registry changes (what every run's request carries). */
  programNameList(): readonly string[] {
    return (this.#programNames ??= Object.freeze(this.programNames()))
  }

  /** The tools a model may call directly (natively, or as a ReAct action), sorted. */
  directNames(): string[] {
    return this.names().filter((n) => !this.#tools.get(n)!.programOnly)
  }

  /** Definitions of the tools a program may call, sorted by name. */
  definitions(): AnyToolDefinition[] {
    return this.programNames().map((n) => this.#tools.get(n)!.definition)
  }

  /** Called after every change (declarations and the type checker follow the registry). */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #changed(): void {
    this.#programNames = undefined
    for (const l of this.#listeners) l()
  }
}

function assertDefinition(def: AnyToolDefinition): void {
  if (typeof def !== 'object' || def === null) throw new TypeError('codeact: a tool definition must be an object')
  if (typeof def.name !== 'string' || !TOOL_NAME.test(def.name)) {
    throw new TypeError(`codeact: tool name ${JSON.stringify(def.name)} must match [A-Za-z0-9_-]{1,64}`)
  }
  if (typeof def.execute !== 'function') throw new TypeError(`codeact: tool "${def.name}" has no execute function`)
  if (typeof def.parameters !== 'object' || def.parameters === null) {
    throw new TypeError(`codeact: tool "${def.name}" needs parameters (a zod schema or a JSON Schema object)`)
  }
}
