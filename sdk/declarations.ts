/**
 * The SDK's TypeScript declarations: the text a model reads in its prompt and the type checker checks the
 * program against. One text for both, so what the model was told is exactly what is enforced.
 *
 * Byte-identical for the same registry (tools sorted by name, no dates or counters), and short: models pay for
 * every token, so the usage note is four lines and objects without docs stay on one line.
 */
import { z } from 'zod'
import type { JsonSchema, SchemaLike, ToolDefinition } from '../vocabulary/types.js'
import { docBlock } from './jsdoc.js'
import { isZodSchema } from './schema.js'
import { pascalCase, propertyKey, schemaToTs } from './schema-to-ts.js'

/** The note above the declarations: how a program is shaped and how it talks to tools. */
export const USAGE_NOTE = [
  '// Your program is the body of an async function: top-level `await` and `return` work.',
  '// Call tools as `await tools.name(args)`; run independent calls together with `Promise.all`.',
  '// A failed call throws ToolCallError; its `code` is errno-style (EINVAL, ENOENT, EACCES, ...).',
  '// `return` the answer; `console.log` for notes.',
].join('\n')

/** What the prelude defines besides `tools` (see prelude.ts): the error class and the console. */
export const RUNTIME_DECLARATIONS = [
  'declare const tools: Tools',
  'declare class ToolCallError extends Error {',
  "  name: 'ToolCallError'",
  '  toolName: string',
  '  code: string',
  '  constructor(toolName: string, code: string, message: string)',
  '}',
  "declare const console: Record<'log' | 'info' | 'warn' | 'error' | 'debug', (...data: unknown[]) => void>",
].join('\n')

/** Names the declarations define; named types made for recursive schemas must not take them. */
const RESERVED = ['Tools', 'ToolCallError', 'Error', 'Record', 'Promise', 'Array', 'Object', 'String', 'Number', 'Boolean']

export interface DeclarationOptions {
  /**
   * The result type of a tool without an `output` schema. `unknown` (default) makes a program narrow or cast
   * before using it; `any` lets it use the value freely (fewer blocked programs, nothing checked there).
   */
  untypedResult?: 'unknown' | 'any'
}

/** The whole SDK text: usage note, `interface Tools`, `tools`, `ToolCallError`, `console`. */
export function renderDeclarations(tools: readonly ToolDefinition[], options: DeclarationOptions = {}): string {
  return `${USAGE_NOTE}\n${renderToolsInterface(tools, options)}\n${RUNTIME_DECLARATIONS}\n`
}

/** `interface Tools { … }` (plus named types for recursive schemas), one method per tool, sorted by name. */
export function renderToolsInterface(tools: readonly ToolDefinition[], options: DeclarationOptions = {}): string {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const taken = new Set(RESERVED)
  const aliases: string[] = []
  const methods = sorted.map((tool) => {
    const prefix = pascalCase(tool.name) || 'Tool'
    const argsSchema = typeSchemaOf(tool.parameters, 'input')
    const args = schemaToTs(argsSchema, { indent: '  ', namePrefix: prefix, rootName: `${prefix}Args`, takenNames: taken })
    const output = tool.output === undefined ? undefined : schemaToTs(typeSchemaOf(tool.output, 'output'), {
      indent: '  ',
      namePrefix: prefix,
      rootName: `${prefix}Result`,
      takenNames: taken,
    })
    aliases.push(...args.aliases, ...(output?.aliases ?? []))
    const optional = argsMayBeOmitted(argsSchema) ? '?' : ''
    const signature = `${propertyKey(tool.name)}(args${optional}: ${args.text}): Promise<${output?.text ?? options.untypedResult ?? 'unknown'}>`
    return `${docBlock(tool.description, '  ')}  ${signature}`
  })
  const head = aliases.map((a) => `${a}\n`).join('')
  return `${head}interface Tools {\n${methods.join('\n')}\n}`
}

/**
 * JSON Schema for typing a tool's arguments (`input`) or result (`output`). A zod object that strips unknown
 * keys is closed here, as zod's own `z.input<>` type is: an excess property is a typo the tool would drop.
 */
export function typeSchemaOf(schema: SchemaLike, io: 'input' | 'output'): JsonSchema {
  if (!isZodSchema(schema)) return schema
  try {
    const out = z.toJSONSchema(schema, {
      unrepresentable: 'any',
      io,
      override: (ctx) => {
        const def = ctx.zodSchema._zod.def
        if (def.type === 'object' && def.catchall === undefined && ctx.jsonSchema.additionalProperties === undefined) {
          ctx.jsonSchema.additionalProperties = false
        }
      },
    }) as JsonSchema
    delete out.$schema
    return out
  } catch {
    return {} // a schema zod cannot describe types as unknown, never as something wrong
  }
}

/** A program may call `tools.x()` without arguments when the tool needs none (the prelude sends `{}`). */
function argsMayBeOmitted(schema: JsonSchema): boolean {
  if ('$ref' in schema || 'anyOf' in schema || 'oneOf' in schema || 'allOf' in schema) return false
  if (schema.type !== undefined && schema.type !== 'object') return false
  return !Array.isArray(schema.required) || schema.required.length === 0
}
