/**
 * Argument validation for zod and JSON Schema alike. A failure names the field, the expected type and
 * what was given, so a model can fix the call in one step.
 */
import { Ajv2020 } from 'ajv/dist/2020.js'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import type { ZodType } from 'zod'
import { isZodSchema } from '../sdk/schema.js'
import { closestNames } from '../sdk/suggest.js'
import type { JsonSchema, JsonValue, SchemaLike } from '../vocabulary/types.js'

export type Validation = { ok: true; value: JsonValue } | { ok: false; message: string }
export type Validator = (args: JsonValue) => Validation

const ajv2020 = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
const ajv07 = new Ajv({ strict: false, allErrors: true, validateFormats: false })

/** Builds the validator of a tool's `parameters`. A schema no validator understands accepts any object. */
export function createValidator(schema: SchemaLike): Validator {
  if (isZodSchema(schema)) return zodValidator(schema)
  const fn = compileJsonSchema(schema)
  if (!fn) return (args) => ({ ok: true, value: args })
  return (args) => (fn(args) ? { ok: true, value: args } : { ok: false, message: describeAjvErrors(fn.errors ?? [], args, schema) })
}

function compileJsonSchema(schema: JsonSchema): ValidateFunction | undefined {
  const { $schema: _ignored, ...rest } = schema
  for (const ajv of [ajv2020, ajv07]) {
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
