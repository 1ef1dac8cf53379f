/**
 * Vercel AI SDK: `generateText({ model, tools: aiSdkTools(rt), stopWhen: stepCountIs(5) })`.
 * A plain `ToolSet` (the AI SDK's `tool()` is the identity), so nothing of `ai` is imported.
 * Each tool runs through `rt.callTool`; the app gets the structured result, the model reads its `content`
 * (`run_code`'s observation, compact JSON, or `Error (CODE): …` marked as an error).
 */
import type { CallToolResult, Runtime, StandardToolSchema } from '../runtime/index.js'
import { selectDefinitions, type AdapterOptions } from './select.js'

export type { AdapterOptions } from './select.js'

export interface AiSdkTool {
  description: string
  inputSchema: StandardToolSchema
  execute(input: unknown, options: { toolCallId: string; abortSignal?: AbortSignal | undefined }): Promise<CallToolResult>
  toModelOutput(options: { output: CallToolResult }): { type: 'text' | 'error-text'; value: string }
}

export function aiSdkTools(rt: Runtime, options: AdapterOptions = {}): Record<string, AiSdkTool> {
  const tools: Record<string, AiSdkTool> = {}
  for (const d of selectDefinitions(rt, options)) {
    tools[d.name] = {
      description: d.description,
      inputSchema: d.inputSchema,
      execute: (input, { toolCallId, abortSignal }) => rt.callTool(d.name, input, { callId: toolCallId, signal: abortSignal }),
      toModelOutput: ({ output }) => ({ type: output.isError ? 'error-text' : 'text', value: output.content }),
    }
  }
  return tools
}
export { aiSdkProgramTool, type AiSdkProgramTool, type ProgramToolOutput } from './ptc.js'
