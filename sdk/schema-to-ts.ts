/**
 * JSON Schema -> TypeScript type text, for the SDK the model reads and the checker checks against.
 *
 * The rule: a generated type may be wider than the schema, never narrower or different. Whatever cannot be
 * expressed (`not`, `if`/`then`, remote `$ref`s, `format` constraints) widens to `unknown` or is left out, so
 * a program the tool would accept never fails the type check.
 */
import { propertyDoc } from './jsdoc.js'
import { intersection, literalUnion, Prec, type Rendered, union, UNKNOWN, wrap } from './type-text.js'

type Schema = { readonly [key: string]: unknown }

export interface SchemaToTsOptions {
  /** Indentation of the line the type starts on; nested members get two more spaces. */
  indent?: string
  /** Prefix of named types made for recursive `$ref`s, e.g. the tool's name in PascalCase. */
  namePrefix?: string
  /** Name of the type for a recursive reference to the whole schema (`$ref: "#"`). */
  rootName?: string
  /** Names already taken in the declaration file; new names are added, and made unique against it. */
  takenNames?: Set<string>
  /** Show validation constraints as JSDoc tags (default true; results are not validated, so not for them). */
  constraints?: boolean
  /** Field name -> doc line the SDK states once for the tool's family; a property with exactly it omits it. */
  sharedDocs?: ReadonlyMap<string, string>
}

export interface TsType {
  /** The type, e.g. `{ path: string; mode?: "r" | "w" }`. */
  text: string
  /** `type Name = …` declarations the text refers to (recursive `$ref`s), to emit beside it. */
  aliases: string[]
}

const MAX_DEPTH = 32
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** The TypeScript type a value of `schema` has. */
export function schemaToTs(schema: unknown, options: SchemaToTsOptions = {}): TsType {
  const ctx = new Context(isSchema(schema) ? schema : {}, options)
  const text = ctx.renderRoot(schema, options.indent ?? '')
  return { text, aliases: ctx.aliases() }
}

/** A property name as TypeScript source: bare when an identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name)
}

/** `read_file` -> `ReadFile`; used to prefix named types. */
export function pascalCase(name: string): string {
  const text = name
    .split(/[^A-Za-z0-9]+/)
    .filter((p) => p !== '')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('')
  return /^[0-9]/.test(text) ? `T${text}` : text
}

class Context {
  /** ref -> name, for refs that turned out to be recursive. */
  private readonly named = new Map<string, string>()
  private readonly bodies = new Map<string, string>()
  /** Refs being expanded, each with the structural depth it started at (see `ref`). */
  private readonly expanding = new Map<string, number>()
  /** How many object/array levels the renderer is inside: a cycle must pass through one to mean anything. */
  private structural = 0
  private readonly taken: Set<string>

  constructor(
    private readonly root: Schema,
    private readonly options: SchemaToTsOptions,
  ) {
    this.taken = options.takenNames ?? new Set()
  }

  /** The whole schema; one that refers to itself (`$ref: "#"`) is declared once, under its name. */
  renderRoot(schema: unknown, indent: string): string {
    this.expanding.set('#', this.structural)
    const text = this.render(schema, indent, 0).text
    this.expanding.delete('#')
    const name = this.named.get('#')
    if (name === undefined) return text
    this.bodies.set('#', this.render(schema, '', 0).text)
    return name
  }

  aliases(): string[] {
    return [...this.named].map(([ref, name]) => `type ${name} = ${this.bodies.get(ref) ?? 'unknown'}`)
  }

  render(schema: unknown, indent: string, depth: number): Rendered {
    if (schema === false) return { text: 'never', prec: Prec.Atom }
    if (!isSchema(schema) || depth > MAX_DEPTH) return UNKNOWN
    const parts: Rendered[] = []
    if (typeof schema.$ref === 'string') parts.push(this.ref(schema.$ref, indent, depth))
    const base = this.base(schema, indent, depth)
    if (base) parts.push(base)
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = schema[key]
      if (Array.isArray(branches) && branches.length > 0) {
        parts.push(union(branches.map((b) => this.render(b, indent, depth + 1))))
      }
    }
    if (Array.isArray(schema.allOf)) parts.push(...schema.allOf.map((s) => this.render(s, indent, depth + 1)))
    const type = intersection(parts)
    return schema.nullable === true ? union([type, { text: 'null', prec: Prec.Atom }]) : type
  }

  /** The part of a schema that is not a combinator: `const`, `enum`, or `type` (stated or implied). */
  private base(schema: Schema, indent: string, depth: number): Rendered | undefined {
    const types = typeNames(schema)
    if ('const' in schema) return literalUnion([schema.const], types)
    if (Array.isArray(schema.enum)) return literalUnion(schema.enum, types)
    if (types === undefined) return undefined
    return union(types.map((t) => this.ofType(t, schema, indent, depth)))
  }

  private ofType(type: string, schema: Schema, indent: string, depth: number): Rendered {
    switch (type) {
      case 'string':
      case 'boolean':
      case 'null':
        return { text: type, prec: Prec.Atom }
      case 'number':
      case 'integer':
        return { text: 'number', prec: Prec.Atom }
      case 'array':
        return this.array(schema, indent, depth)
      case 'object':
        return this.object(schema, indent, depth)
      default:
        return UNKNOWN
    }
  }

  private array(schema: Schema, indent: string, depth: number): Rendered {
    this.structural++
    try {
      return this.arrayBody(schema, indent, depth)
    } finally {
      this.structural--
    }
  }

  private object(schema: Schema, indent: string, depth: number): Rendered {
    this.structural++
    try {
      return this.objectBody(schema, indent, depth)
    } finally {
      this.structural--
    }
  }

  private arrayBody(schema: Schema, indent: string, depth: number): Rendered {
    // 2020-12 tuples: prefixItems + items (the rest); draft 7 tuples: items[] + additionalItems (the rest).
    const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined
    if (tuple === undefined) {
      const item = 'items' in schema ? this.render(schema.items, indent, depth + 1) : UNKNOWN
      return { text: `${wrap(item, Prec.Atom)}[]`, prec: Prec.Atom }
    }
    const rest = Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems
    const min = typeof schema.minItems === 'number' ? schema.minItems : 0
    const elements = tuple.map((s, i) => {
      const t = this.render(s, indent, depth + 1)
      // An element past minItems may be missing.
      return i < min ? t.text : `${wrap(t, Prec.Atom)}?`
    })
    if (rest !== false) elements.push(`...${wrap(rest === undefined ? UNKNOWN : this.render(rest, indent, depth + 1), Prec.Atom)}[]`)
    return { text: `[${elements.join(', ')}]`, prec: Prec.Atom }
  }

  private objectBody(schema: Schema, indent: string, depth: number): Rendered {
    const inner = `${indent}  `
    const properties = isSchema(schema.properties) ? { ...schema.properties } : {}
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : [])
    const extra = schema.additionalProperties
    // A record keyed by an enum (zod's z.record(z.enum(...), T)) is an object with those keys.
    const keys = isSchema(schema.propertyNames) && Array.isArray(schema.propertyNames.enum) ? schema.propertyNames.enum : []
    for (const key of keys) if (typeof key === 'string' && !(key in properties)) properties[key] = isSchema(extra) ? extra : {}
    for (const name of required) if (!(name in properties)) properties[name] = {}

    const members: { doc: string; text: string }[] = []
    const valueTypes: Rendered[] = []
    for (const [name, propSchema] of Object.entries(properties)) {
      const optional = !required.has(name)
      const type = this.render(propSchema, inner, depth + 1)
      valueTypes.push(optional ? union([type, { text: 'undefined', prec: Prec.Atom }]) : type)
      members.push({
        doc: isSchema(propSchema) ? this.docOf(name, propSchema) : '',
        text: `${propertyKey(name)}${optional ? '?' : ''}: ${type.text}`,
      })
    }
    const index = keys.length > 0 ? undefined : this.indexType(schema, inner, depth)
    if (index !== undefined) {
      // An index signature must admit every known property's type too.
      const value = index.text === 'unknown' ? index : union([index, ...valueTypes])
      members.push({ doc: '', text: `[k: string]: ${value.text}` })
    }
    if (members.length === 0) return { text: 'Record<string, never>', prec: Prec.Atom }
    const flat = `{ ${members.map((m) => m.text).join('; ')} }`
    if (members.every((m) => m.doc === '') && !flat.includes('\n') && flat.length + indent.length <= 100) {
      return { text: flat, prec: Prec.Atom }
    }
    // Docs that are only tags (`@integer`, `@minimum 1`) fit inline in a short object.
    const tagged = `{ ${members.map((m) => (m.doc ? `/** ${m.doc} */ ${m.text}` : m.text)).join('; ')} }`
    if (members.every((m) => m.doc === '' || m.doc.startsWith('@')) && !tagged.includes('\n') && tagged.length + indent.length <= 100) {
      return { text: tagged, prec: Prec.Atom }
    }
    // A property's doc shares the property's line: the same text in fewer bytes and lines.
    const body = members.map((m) => `${inner}${m.doc ? `/** ${m.doc} */ ` : ''}${m.text}`).join('\n')
    return { text: `{\n${body}\n${indent}}`, prec: Prec.Atom }
  }

  /** A property's doc line, or '' when the SDK states that very line once for the family (sharedDocs). */
  private docOf(name: string, schema: Schema): string {
    const doc = propertyDoc(schema, false, this.options.constraints !== false)
    return doc !== '' && this.options.sharedDocs?.get(name) === doc ? '' : doc
  }

  /** The type of properties beyond the named ones, or undefined when there may be none. */
  private indexType(schema: Schema, indent: string, depth: number): Rendered | undefined {
    const extra = schema.additionalProperties
    const patterns = isSchema(schema.patternProperties) ? Object.values(schema.patternProperties) : []
    const types = patterns.map((p) => this.render(p, indent, depth + 1))
    if (extra === false) return types.length > 0 ? union(types) : undefined
    if (extra === undefined || extra === true) return UNKNOWN
    return union([this.render(extra, indent, depth + 1), ...types])
  }

  /** A local `$ref`: inlined, or a named type when it refers to itself. */
  private ref(ref: string, indent: string, depth: number): Rendered {
    const name = this.named.get(ref)
    if (name !== undefined) return { text: name, prec: Prec.Atom }
    const target = resolvePointer(this.root, ref)
    if (target === undefined) return UNKNOWN
    const startedAt = this.expanding.get(ref)
    // A cycle of bare refs (`A = B`, `B = A`, or through allOf/anyOf only) describes no value at all, and as
    // `type A = A` TypeScript would read it as any: it is unknown. Through an object or array it is recursion.
    if (startedAt !== undefined) return startedAt === this.structural ? UNKNOWN : { text: this.nameFor(ref), prec: Prec.Atom }
    this.expanding.set(ref, this.structural)
    const body = this.render(target, indent, depth + 1)
    this.expanding.delete(ref)
    const recursive = this.named.get(ref)
    if (recursive === undefined) return body
    // It refers to itself: declare it once at the top level, where its own name now stands for it.
    this.bodies.set(ref, this.render(target, '', 0).text)
    return { text: recursive, prec: Prec.Atom }
  }

  private nameFor(ref: string): string {
    // A schema's own title names it best; else the last pointer segment (zod's are `__schema0`).
    const target = resolvePointer(this.root, ref)
    const title = isSchema(target) && typeof target.title === 'string' ? target.title : ''
    const last = pascalCase(title) || pascalCase(decodeSegment(ref.split('/').pop() ?? '')) || 'Type'
    const stem =
      ref === '#' ? (this.options.rootName ?? `${this.options.namePrefix ?? ''}${last}`) : `${this.options.namePrefix ?? ''}${last}`
    let name = stem
    for (let i = 2; this.taken.has(name); i++) name = `${stem}${i}`
    this.taken.add(name)
    this.named.set(ref, name)
    return name
  }
}

/** The JSON types a schema states, or implies by its keywords; undefined when it says nothing. */
function typeNames(schema: Schema): string[] | undefined {
  if (typeof schema.type === 'string') return [schema.type]
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === 'string')
  if ('properties' in schema || 'additionalProperties' in schema || 'required' in schema || 'patternProperties' in schema) return ['object']
  if ('items' in schema || 'prefixItems' in schema) return ['array']
  return undefined
}

/** Follows a local JSON pointer (`#`, `#/$defs/Node`, `#/definitions/a~1b`) from the root. */
function resolvePointer(root: Schema, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined // remote refs are not fetched
  const path = ref.slice(1)
  if (path === '') return root
  if (!path.startsWith('/')) return undefined // anchors ($anchor) are not supported
  let node: unknown = root
  for (const segment of path.slice(1).split('/')) {
    if (!isSchema(node) && !Array.isArray(node)) return undefined
    node = (node as Record<string, unknown>)[decodeSegment(segment)]
  }
  return node
}

function decodeSegment(segment: string): string {
  let text = segment
  try {
    text = decodeURIComponent(segment)
  } catch {
    // not percent-encoded after all
  }
  return text.replace(/~1/g, '/').replace(/~0/g, '~')
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
