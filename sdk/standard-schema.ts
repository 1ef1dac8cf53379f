/**
 * A tool's arguments schema as a Standard Schema object (https://standardschema.dev): `~standard.validate`
 * (the runtime's own validator, so a framework that validates first reports what dispatch would) and
 * `~standard.jsonSchema` (the JSON Schema a model sees). Frameworks that take "any Standard Schema" (the AI
 * SDK, LangChain) accept it as is. The types mirror `@standard-schema/spec` (StandardSchemaV1 and
 * StandardJSONSchemaV1), which the spec asks implementers to copy rather than depend on.
 */
import type { JsonSchema } from '../vocabulary/types.js'

export interface StandardIssue {
  readonly message: string
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined
}
export type StandardResult<T> = { readonly value: T; readonly issues?: undefined } | { readonly issues: ReadonlyArray<StandardIssue> }

export interface StandardToolSchema<T = Record<string, unknown>> {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: 'codeact'
    readonly validate: (value: unknown) => StandardResult<T> | Promise<StandardResult<T>>
    readonly jsonSchema: {
      readonly input: (options: {
        readonly target: string
        readonly libraryOptions?: Record<string, unknown> | undefined
      }) => Record<string, unknown>
      readonly output: (options: {
        readonly target: string
        readonly libraryOptions?: Record<string, unknown> | undefined
      }) => Record<string, unknown>
    }
    readonly types?: { readonly input: T; readonly output: T } | undefined
  }
}

export type SchemaCheck = (value: unknown) => { ok: true; value: unknown } | { ok: false; message: string }

/** Wraps a JSON Schema and its validator. The JSON Schema is handed out as a copy each time (callers mutate). */
export function standardToolSchema<T = Record<string, unknown>>(schema: JsonSchema, check: SchemaCheck): StandardToolSchema<T> {
  const json = () => structuredClone(schema) as Record<string, unknown>
  return {
    '~standard': {
      version: 1,
      vendor: 'codeact',
      validate: (value) => {
        const r = check(value)
        // The validator's value is JSON of the schema's shape; T is what the caller declared that to be.
        return r.ok ? { value: r.value as T } : { issues: [{ message: r.message }] }
      },
      jsonSchema: { input: json, output: json },
    },
  }
}
