/**
 * Schemas arrive as zod or as raw JSON Schema (MCP). This module is the one place that tells them apart
 * and turns either into JSON Schema, for the SDK's declarations, the run_code definition and adapters.
 */
import type { ZodType } from 'zod'
// zod's core, not its classic API: toJSONSchema is the same function, without ~0.7 MB of schema builders.
import { toJSONSchema } from 'zod/v4/core'
import type { JsonSchema, SchemaLike } from '../vocabulary/types.js'

/** True for a zod (v4) schema. */
export function isZodSchema(schema: unknown): schema is ZodType {
  return typeof schema === 'object' && schema !== null && '_zod' in schema
}

/** JSON Schema (draft 2020-12 flavoured) for a zod schema or a raw JSON Schema object. */
export function toJsonSchema(schema: SchemaLike): JsonSchema {
  if (!isZodSchema(schema)) return schema
  const out = toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as JsonSchema
  delete out.$schema
  return out
}
