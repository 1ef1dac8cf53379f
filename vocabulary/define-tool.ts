import type { z, ZodType } from 'zod'
import type { JsonSchema, ToolContext, ToolDefinition } from './types.js'

/**
 * Types a tool definition: with a zod `parameters` schema, `execute` receives the parsed type.
 * It returns its argument unchanged; a plain object literal works just as well.
 */
export function defineTool<S extends ZodType, R>(
  def: Omit<ToolDefinition<z.output<S>, R>, 'parameters' | 'execute'> & {
    parameters: S
    execute(args: z.output<S>, ctx: ToolContext): R | Promise<R>
  },
): ToolDefinition<z.output<S>, R>
export function defineTool<A = Record<string, unknown>, R = unknown>(
  def: ToolDefinition<A, R> & { parameters: JsonSchema },
): ToolDefinition<A, R>
export function defineTool(def: ToolDefinition): ToolDefinition {
  return def
}
