/**
 * Argument validation for zod and JSON Schema alike. A failure names the field, the expected type and
 * what was given, so a model can fix the call in one step.
 */
import { createRequire } from 'node:module'
import type { Ajv2020 } from 'ajv/dist/2020.js'
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv'
import type { ZodType } from 'zod'
import { isZodSchema } from '../sdk/schema.js'
import { closestNames } from '../program/suggest.js'
import type { JsonSchema, JsonValue, SchemaLike } from '../vocabulary/types.js'

export type Validation = { ok: true; value: JsonValue } | { ok: false; message: string }
export type Validator = (args: JsonValue) => Validation

// Loaded (and its two instances built) at the first JSON Schema validation, not at start-up: CPU a process
// whose tools are zod, or that calls none, never needs (`codeact run` of a plain program).
let ajvs: [Ajv2020, Ajv] | undefined
function validators(): [Ajv2020, Ajv] {
  if (ajvs) return ajvs
  const require = createRequire(import.meta.url)
  const options = { strict: false, allErrors: true, validateFormats: false }
  const draft2020 = (require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020
  const draft07 = (require('ajv') as typeof import('ajv')).Ajv
  ajvs = [new draft2020(options), new draft07(options)]
  return ajvs
}

/**
 * Builds the validator of a tool's `parameters` (a JSON Schema is compiled at its first use). A schema no
 * validator understands accepts any object.
 */
export function createValidator(schema: SchemaLike): Validator {
  if (isZodSchema(schema)) return zodValidator(schema)
  if (onlySaysObject(schema)) return objectValidator
  let fn: ValidateFunction | null | undefined
  return (args) => {
    if (fn === undefined) fn = compileJsonSchema(schema) ?? null
    if (fn === null) return { ok: true, value: args }
    return fn(args) ? { ok: true, value: args } : { ok: false, message: describeAjvErrors(fn.errors ?? [], args, schema) }
  }
}

/** Keys that do not constrain a value (annotations), beside `type: 'object'` and an empty `properties`. */
const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description', 'examples', 'default'])

/**
 * A schema that says only "an object" (a tool without arguments: `{ type: 'object' }`, perhaps with an empty
 * `properties`): checked here, as ajv would, without loading ajv (its load is a process's first call's largest cost).
 */
function onlySaysObject(schema: JsonSchema): boolean {
  if (schema.type !== 'object') return false
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' || ANNOTATIONS.has(key)) continue
    if (key === 'properties' && typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0)
      continue
    return false
  }
  return true
}

/** ajv's answer for `{ type: 'object' }`, and its message (describeAjvErrors' `type` case). */
const objectValidator: Validator = (args) =>
  typeof args === 'object' && args !== null && !Array.isArray(args)
    ? { ok: true, value: args }
    : { ok: false, message: finishMessage([`(arguments): expected object, got ${describeGiven(args)}`], 1) }

function compileJsonSchema(schema: JsonSchema): ValidateFunction | undefined {
  const { $schema: _ignored, ...rest } = schema
  for (const ajv of validators()) {
    try {
      return ajv.compile(rest)
    } catch {
      // try the next draft
    }
  }
  return undefined
}

function zodValidator(schema: ZodType): Validator {
  return (args) => {
    const r = schema.safeParse(args)
    if (r.success) return { ok: true, value: r.data as JsonValue }
    const lines = r.error.issues.slice(0, 3).map((issue) => {
      const field = issue.path.length ? issue.path.join('.') : '(arguments)'
      const given = describeGiven(valueAt(args, issue.path))
      if (issue.code === 'unrecognized_keys') return `${field}: unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}`
      if (issue.code === 'invalid_type' && valueAt(args, issue.path) === undefined) {
        return `${field}: missing required field (expected ${issue.expected})`
      }
      return `${field}: ${issue.message.replace(/^Invalid input: /, '')} — got ${given}`
    })
    return { ok: false, message: finishMessage(lines, r.error.issues.length) }
  }
}

function describeAjvErrors(errors: ErrorObject[], args: JsonValue, schema: JsonSchema): string {
  // Prefer the most specific errors: drop the "must match a schema in anyOf" summaries when details exist.
  const useful = errors.filter((e) => !['anyOf', 'oneOf', 'if'].includes(e.keyword))
  const list = (useful.length ? useful : errors).slice(0, 3).map((e) => {
    const path = e.instancePath
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    const field = path.length ? path.join('.') : '(arguments)'
    const params = e.params as Record<string, unknown>
    switch (e.keyword) {
      case 'required': {
        const missing = String(params.missingProperty)
        return `${path.length ? field + '.' : ''}${missing}: missing required field`
      }
      case 'additionalProperties': {
        const extra = String(params.additionalProperty)
        const known = Object.keys((propertiesAt(schema, path) ?? {}) as object)
        const hint = closestNames(extra, known)
        return `${path.length ? field + '.' : ''}${extra}: unknown field${hint.length ? ` (did you mean "${hint[0]}"?)` : ''}`
      }
      case 'type':
        return `${field}: expected ${String(params.type)}, got ${describeGiven(valueAt(args, path))}`
      case 'enum':
        return `${field}: expected one of ${JSON.stringify(params.allowedValues)}, got ${describeGiven(valueAt(args, path))}`
      case 'const':
        return `${field}: expected ${JSON.stringify(params.allowedValue)}, got ${describeGiven(valueAt(args, path))}`
      default:
        return `${field}: ${e.message ?? 'is invalid'}, got ${describeGiven(valueAt(args, path))}`
    }
  })
  return finishMessage(list, errors.length)
}

function finishMessage(lines: string[], total: number): string {
  const more = total > lines.length ? ` (and ${total - lines.length} more)` : ''
  return `invalid arguments: ${lines.join('; ')}${more}`
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined
    v = (v as Record<PropertyKey, unknown>)[key as string]
  }
  return v
}

function propertiesAt(schema: JsonSchema, path: string[]): unknown {
  let s: unknown = schema
  for (const key of path) s = (s as { properties?: Record<string, unknown> } | undefined)?.properties?.[key]
  return (s as { properties?: unknown } | undefined)?.properties
}

/** A short description of a given value: its type and a clipped rendering. */
export function describeGiven(v: unknown): string {
  if (v === undefined) return 'nothing'
  if (v === null) return 'null'
  const type = Array.isArray(v) ? 'array' : typeof v
  const text = JSON.stringify(v) ?? String(v)
  return `${type} ${text.length > 40 ? text.slice(0, 37) + '...' : text}`
}
