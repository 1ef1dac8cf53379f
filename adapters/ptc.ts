/**
 * codeact in place of OpenAI's hosted programmatic tool calling, for an AI SDK or OpenAI Agents app: one tool,
 * `program`, whose input is the hosted `program` item's (`{ code }`, JavaScript calling the tools as global
 * async functions, `text()` for output) and whose output is its `program_output`'s (`{ result, status }`).
 * The program runs here (`rt.runPtcProgram`): type-checked, in the sandbox, every sub-call through the
 * hooks and approvals and logged with `caller: { type: 'program', … }`. Nothing of `ai` or `@openai/agents`
 * is imported: the objects are shaped as their `tool()` and `FunctionTool` are.
 */
import type { Runtime, StandardToolSchema } from '../runtime/index.js'
import { standardToolSchema } from '../sdk/standard-schema.js'

/** The hosted tool's name in the Responses API; the replacement keeps it. */
export const PROGRAM_TOOL = 'program'

const PARAMETERS = {
  type: 'object',
  properties: { code: { type: 'string', description: 'The JavaScript program (top-level await; tools are global async functions).' } },
  required: ['code'],
  additionalProperties: false,
} as const

/** What the hosted tool answers with (a `program_output` item's fields). */
export interface ProgramToolOutput {
  result: string
  status: 'completed' | 'incomplete'
}

export interface AiSdkProgramTool {
  description: string
  inputSchema: StandardToolSchema<{ code: string }>
  execute(input: { code: string }, options: { toolCallId: string; abortSignal?: AbortSignal | undefined }): Promise<ProgramToolOutput>
  toModelOutput(options: { output: ProgramToolOutput }): { type: 'text' | 'error-text'; value: string }
}

/** `tools: { program: aiSdkProgramTool(rt), ...aiSdkTools(rt) }` in `generateText` / `streamText`. */
export function aiSdkProgramTool(rt: Runtime): AiSdkProgramTool {
  return {
    description: programDescription(rt),
    inputSchema: standardToolSchema<{ code: string }>(PARAMETERS, (value) =>
      typeof value === 'object' && value !== null && typeof (value as { code?: unknown }).code === 'string'
        ? { ok: true, value }
        : { ok: false, message: 'program: expected { "code": string }' },
    ),
    execute: async ({ code }, { abortSignal }) => outputOf(await rt.runPtcProgram(code, abortSignal ? { signal: abortSignal } : {})),
    toModelOutput: ({ output }) => ({ type: output.status === 'completed' ? 'text' : 'error-text', value: output.result }),
  }
}

export interface AgentsProgramTool {
  type: 'function'
  name: typeof PROGRAM_TOOL
  description: string
  parameters: {
    type: 'object'
    properties: { code: { type: 'string'; description: string } }
    required: ['code']
    additionalProperties: false
  }
  strict: true
  invoke(runContext: unknown, input: string, details?: { signal?: AbortSignal | undefined }): Promise<string>
  needsApproval(): Promise<boolean>
  isEnabled(): Promise<boolean>
}

/** `new Agent({ tools: [openaiAgentsProgramTool(rt), ...] })` in place of `programmaticToolCallingTool()`. */
export function openaiAgentsProgramTool(rt: Runtime): AgentsProgramTool {
  return {
    type: 'function',
    name: PROGRAM_TOOL,
    description: programDescription(rt),
    parameters: {
      type: 'object',
      properties: { code: { type: 'string', description: PARAMETERS.properties.code.description } },
      required: ['code'],
      additionalProperties: false,
    },
    strict: true,
    invoke: async (_runContext, input, details) => {
      let code: unknown
      try {
        code = (JSON.parse(input) as { code?: unknown }).code
      } catch (e) {
        return `Error (EINVAL): program: arguments are not valid JSON (${(e as Error).message}); send {"code": "…"}`
      }
      if (typeof code !== 'string') return 'Error (EINVAL): program: expected {"code": string}'
      return (await rt.runPtcProgram(code, details?.signal ? { signal: details.signal } : {})).result
    },
    needsApproval: async () => false,
    isEnabled: async () => true,
  }
}

function outputOf(out: ProgramToolOutput): ProgramToolOutput {
  return { result: out.result, status: out.status }
}

function programDescription(rt: Runtime): string {
  return [
    'Run a JavaScript program that orchestrates the tools: top-level await; each tool below is a global async',
    'function taking its arguments object (`await get_weather({ city: "Paris" })`, or the plain value for a',
    'one-parameter tool); emit output with text(value); a returned value is appended to the output.',
    'The tools (as typed declarations of `tools.<name>`):',
    rt.sdk.declarations(),
  ].join('\n')
}
