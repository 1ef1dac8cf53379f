/**
 * Schemas arrive as zod or as raw JSON Schema (MCP). This module is the one place that tells them apart
 * and turns either into JSON Schema, for the SDK's declarations, the run_code definition and adapters.
 */
import type { ZodType } from 'zod'
import type { ToJSONSchemaParams } from 'zod/v4/core'
import type { JsonSchema, SchemaLike } from '../vocabulary/types.js'
import { zodCore } from './lazy-module.js'

/** True for a zod (v4) schema. */
export function isZodSchema(schema: unknown): schema is ZodType {
  return typeof schema === 'object' && schema !== null && '_zod' in schema
}

/**
 * zod's toJSONSchema of `schema`: the schema's own method (zod's classic API, 4.2 on: the zod that made it,
 * already loaded), else zod's core, loaded now (lazy-module.ts) — never at import, so a runtime that meets no
 * zod schema never loads zod.
 */
export function zodJsonSchema(schema: ZodType, params: ToJSONSchemaParams): Record<string, unknown> {
  const own = (schema as { toJSONSchema?: unknown }).toJSONSchema
  if (typeof own === 'function') return (own as (p: ToJSONSchemaParams) => Record<string, unknown>).call(schema, params)
  return zodCore().toJSONSchema(schema, params) as Record<string, unknown>
}

/** JSON Schema (draft 2020-12 flavoured) for a zod schema or a raw JSON Schema object. */
export function toJsonSchema(schema: SchemaLike): JsonSchema {
  if (!isZodSchema(schema)) return schema
  const out = zodJsonSchema(schema, { unrepresentable: 'any', io: 'input' }) as JsonSchema
  delete out.$schema
  return out
}
