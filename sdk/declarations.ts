/**
 * The SDK's TypeScript declarations: the text a model reads in its prompt and the type checker checks the
 * program against. One text for both, so what the model was told is exactly what is enforced.
 *
 * Byte-identical for the same registry (tools sorted by name, no dates or counters), and short: models pay for
 * every token, so the usage note is four lines and objects without docs stay on one line.
 */
import type { JsonSchema, SchemaLike, ToolDefinition } from '../vocabulary/types.js'
import { builtinsName } from '../program/builtins.js'
import { docBlock, propertyDoc } from './jsdoc.js'
import { isZodSchema, zodJsonSchema } from './schema.js'
import { pascalCase, propertyKey, schemaToTs } from './schema-to-ts.js'

/** The note above the declarations: how a program is shaped and how it talks to tools. */
export const USAGE_NOTE = [
  '// The program is the body of an async function: top-level `await` and `return` work; `return` the answer.',
  '// Call `await tools.name(args)`, independent calls together in `Promise.all`. A failed call throws ToolCallError',
  '// (`code`: EINVAL, ENOENT, EACCES, ...). console.log for notes. No network, files, modules or host (fetch,',
  `// require, process): only tools, ${builtinsName()}, timers, URL, TextEncoder/Decoder, atob/btoa, structuredClone.`,
].join('\n')

/**
 * What the prelude defines besides `tools` (see prelude.ts): the error class. The console and the other
 * standard globals are declared in the checker's ambient text (typecheck-hints.ts); the usage note names them.
 */
export const RUNTIME_DECLARATIONS = [
  'declare const tools: Tools',
  'declare class ToolCallError extends Error {',
  "  name: 'ToolCallError'",
  '  toolName: string',
  '  code: string',
  '  constructor(toolName: string, code: string, message: string)',
  '}',
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
  const argSchemas = sorted.map((tool) => typeSchemaOf(tool.parameters, 'input'))
  // Repeated field docs are said once per family of tools (an MCP server's `server__` prefix, else all).
  const families = new Map<string, number[]>()
  sorted.forEach((tool, i) => {
    families.set(familyOf(tool.name), [...(families.get(familyOf(tool.name)) ?? []), i])
  })
  const docsByFamily = new Map([...families].map(([family, at]) => [family, sharedFieldDocs(at.map((i) => argSchemas[i] ?? {}))]))
  const sentencesByFamily = new Map(
    [...families].map(([family, at]) => [family, sharedSentences(at.map((i) => sorted[i]?.description ?? ''))]),
  )
  const methods = sorted.map((tool, i) => {
    const prefix = pascalCase(tool.name) || 'Tool'
    const argsSchema = argSchemas[i] ?? {}
    const sharedDocs = docsByFamily.get(familyOf(tool.name))
    const args = schemaToTs(argsSchema, {
      indent: '  ',
      namePrefix: prefix,
      rootName: `${prefix}Args`,
      takenNames: taken,
      ...(sharedDocs ? { sharedDocs } : {}),
    })
    const output =
      tool.output === undefined
        ? undefined
        : schemaToTs(typeSchemaOf(tool.output, 'output'), {
            indent: '  ',
            namePrefix: prefix,
            rootName: `${prefix}Result`,
            takenNames: taken,
            constraints: false,
          })
    aliases.push(...args.aliases, ...(output?.aliases ?? []))
    const optional = argsMayBeOmitted(argsSchema) ? '?' : ''
    const signature = `${propertyKey(tool.name)}(args${optional}: ${args.text}): Promise<${output?.text ?? options.untypedResult ?? 'unknown'}>`
    const said = sentencesByFamily.get(familyOf(tool.name)) ?? []
    return `${docBlock(withoutSentences(tool.description, said), '  ')}  ${signature}`
  })
  const head = aliases.map((a) => `${a}\n`).join('')
  const shared = [...docsByFamily]
    .filter(([family, docs]) => docs.size > 0 || (sentencesByFamily.get(family)?.length ?? 0) > 0)
    .map(([family, docs]) => {
      const notes = (sentencesByFamily.get(family) ?? []).map((s) => `//   ${s}\n`).join('')
      const lines = [...docs].map(([name, doc]) => `//   ${name}: ${doc}\n`).join('')
      return `// ${family === '' ? 'All tools' : `${family}* tools`}:\n${notes}${lines}`
    })
    .join('')
  return `${head}${shared}interface Tools {\n${methods.join('\n')}\n}`
}

/** Sentences that end or appear in 3+ tool descriptions of one family ("Only works within allowed directories."). */
function sharedSentences(descriptions: readonly string[]): string[] {
  const counts = new Map<string, number>()
  for (const d of descriptions) for (const s of new Set(sentencesOf(d))) counts.set(s, (counts.get(s) ?? 0) + 1)
  return [...counts]
    .filter(([s, n]) => n >= 3 && s.length >= 20)
    .map(([s]) => s)
    .sort()
}

function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => s !== '' && !s.includes('\n'))
}

function withoutSentences(text: string, said: readonly string[]): string {
  if (said.length === 0) return text
  let out = text
  for (const s of said) out = out.split(s).join('')
  return out
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/[ \t]+$/gm, '')
    .trim()
}

/** `github__list_issues` -> `github__`: the tools of one MCP server; '' for the rest. */
function familyOf(name: string): string {
  const at = name.indexOf('__')
  return at > 0 ? name.slice(0, at + 2) : ''
}

/**
 * Field descriptions repeated across tools (`owner: Repository owner …` in 15 GitHub tools), said once above
 * `interface Tools` instead of at every use; only where that is shorter.
 */
function sharedFieldDocs(schemas: readonly JsonSchema[]): Map<string, string> {
  const counts = new Map<string, { name: string; doc: string; n: number }>()
  const uses = new Map<string, number>()
  const every = new Map<string, number>()
  const visit = (schema: unknown, depth: number) => {
    if (depth > 4 || typeof schema !== 'object' || schema === null || Array.isArray(schema)) return
    const s = schema as Record<string, unknown>
    const props = s.properties
    if (typeof props === 'object' && props !== null && !Array.isArray(props)) {
      for (const [name, prop] of Object.entries(props as Record<string, unknown>)) {
        const doc = typeof prop === 'object' && prop !== null && !Array.isArray(prop) ? propertyDoc(prop as Record<string, unknown>) : ''
        if (doc !== '') uses.set(name, (uses.get(name) ?? 0) + 1)
        every.set(name, (every.get(name) ?? 0) + 1)
        if (doc !== '') {
          const key = `${name}\u0000${doc}`
          const entry = counts.get(key) ?? { name, doc, n: 0 }
          entry.n++
          counts.set(key, entry)
        }
        visit(prop, depth + 1)
      }
    }
    visit(s.items, depth + 1)
  }
  for (const schema of schemas) visit(schema, 0)
  const shared = new Map<string, string>()
  const byName = [...counts.values()].filter((e) => e.n >= 2).sort((a, b) => b.n - a.n || (a.name < b.name ? -1 : 1))
  for (const e of byName) {
    // Each use saves `/** doc */ `; the legend line costs `//   name: doc`.
    const saved = e.n * (e.doc.length + 7) - (e.doc.length + e.name.length + 7)
    // Only a name no tool of the family describes otherwise: the legend must not lend another field a meaning.
    // A legend line with constraints must be true of every field of its name, documented or not: the
    // checker reads them back from it (program/call-constraints.ts).
    const exact = !CONSTRAINT_TAG.test(e.doc) || every.get(e.name) === e.n
    if (saved > 0 && uses.get(e.name) === e.n && exact) shared.set(e.name, e.doc)
  }
  return new Map([...shared].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

const CONSTRAINT_TAG =
  /(^|\s)@(integer|minimum|exclusiveMinimum|maximum|exclusiveMaximum|minLength|maxLength|minItems|maxItems|multipleOf|pattern|uniqueItems|format)\b/

/**
 * JSON Schema for typing a tool's arguments (`input`) or result (`output`). A zod object that strips unknown
 * keys is closed here, as zod's own `z.input<>` type is: an excess property is a typo the tool would drop.
 */
export function typeSchemaOf(schema: SchemaLike, io: 'input' | 'output'): JsonSchema {
  if (!isZodSchema(schema)) return schema
  try {
    const out = zodJsonSchema(schema, {
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
