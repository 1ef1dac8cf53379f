/**
 * The `run_code` tool as a model sees it in a function-calling request: how to write a program, and the SDK
 * it can call. Its description embeds the declarations, so one tool carries every other tool.
 */
import type { JsonSchema } from '../vocabulary/types.js'

export interface FunctionToolDefinition {
  name: string
  description: string
  parameters: JsonSchema
}

export const RUN_CODE_PARAMETERS: JsonSchema = {
  type: 'object',
  properties: {
    code: {
      type: 'string',
      description: 'A TypeScript program: the body of an async function. Use `await tools.name(args)` and `return` the answer.',
    },
    description: { type: 'string', description: 'One line saying what the program does (shown to the user).' },
  },
  required: ['code'],
  additionalProperties: false,
}

export function runCodeDescription(declarations: string, limits: { timeoutMs: number; memoryMb: number }): string {
  return [
    'Run a TypeScript program that calls the tools below, and get back what it printed and returned.',
    'Write one program for a whole multi-step task instead of many single tool calls: loop, filter, and combine results in code, and return only what matters.',
    `Limits: ${Math.round(limits.timeoutMs / 1000)} s, ${limits.memoryMb} MB; no network, no file system, no timers or Node APIs except through tools.`,
    'Type errors are reported before anything runs. Every failed or denied tool call is listed in the result, even if the program caught it.',
    '',
    '```ts',
    declarations.trimEnd(),
    '```',
  ].join('\n')
}
