/**
 * The `run_code` tool as a model sees it in a function-calling request: how to write a program, and the SDK
 * it can call. Its description embeds the declarations, so one tool carries every other tool.
 */
import type { JsonSchema } from '../vocabulary/types.js'
import type { StandardToolSchema } from './standard-schema.js'

export interface FunctionToolDefinition {
  name: string
  description: string
  parameters: JsonSchema
  /**
   * The same arguments schema as a Standard Schema object (`~standard`: validate + JSON Schema), for
   * frameworks that take one (AI SDK, LangChain). Not enumerable, so the definition stays plain JSON.
   */
  readonly inputSchema: StandardToolSchema
}

/** The schema's exact type, so it is assignable to the SDKs' strict object-schema types without a cast. */
export type RunCodeParameters = {
  type: 'object'
  properties: { code: { type: 'string'; description: string } }
  required: ['code']
  additionalProperties: false
}

/** `run_code`'s definition, with its parameters' exact type. */
export interface RunCodeToolDefinition extends FunctionToolDefinition {
  parameters: RunCodeParameters
}

/**
 * `run_code`'s arguments: one required string and nothing optional, so it is valid in OpenAI strict mode
 * (which the Agents SDK turns on by default): every property required, no additional properties.
 */
export const RUN_CODE_PARAMETERS: RunCodeParameters = {
  type: 'object',
  properties: {
    code: {
      type: 'string',
      description: 'A TypeScript program: the body of an async function. Use `await tools.name(args)` and `return` the answer.',
    },
  },
  required: ['code'],
  additionalProperties: false,
}

/** Said of `run_code` when it is offered as a freeform (custom) tool: its whole input is the program. */
export const RUN_CODE_FREEFORM_NOTE = "Send the program itself as this tool's input: plain TypeScript, not JSON — no quoting or escaping."

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
