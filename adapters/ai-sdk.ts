/**
 * Vercel AI SDK: `generateText({ model, tools: aiSdkTools(rt), stopWhen: stepCountIs(5) })`.
 * A plain `ToolSet` (the AI SDK's `tool()` is the identity), so nothing of `ai` is imported.
 * Each tool runs through `rt.callTool`; the app gets the structured result, the model reads its `content`
 * (`run_code`'s observation, compact JSON, or `Error (CODE): …` marked as an error).
 */
import type { CallToolResult, FunctionToolDefinition, Runtime, StandardToolSchema } from '../runtime/index.js'

export interface AiSdkTool {
  description: string
  inputSchema: StandardToolSchema
  execute(input: unknown, options: { toolCallId: string; abortSignal?: AbortSignal | undefined }): Promise<CallToolResult>
  toModelOutput(options: { output: CallToolResult }): { type: 'text' | 'error-text'; value: string }
}

export interface AdapterOptions {
  /** Offer only these tools (default: `rt.tools.definitions()` — every tool and `run_code`, only `run_code` in code mode). */
  only?: readonly string[]
}

export function aiSdkTools(rt: Runtime, options: AdapterOptions = {}): Record<string, AiSdkTool> {
  const tools: Record<string, AiSdkTool> = {}
  for (const d of selectDefinitions(rt, options)) {
    tools[d.name] = {
      description: d.description,
      inputSchema: d.inputSchema,
      execute: (input, { toolCallId, abortSignal }) => rt.callTool(d.name, input, { callId: toolCallId, ...(abortSignal ? { signal: abortSignal } : {}) }),
      toModelOutput: ({ output }) => ({ type: output.isError ? 'error-text' : 'text', value: output.content }),
    }
  }
  return tools
}

export function selectDefinitions(rt: Runtime, options: AdapterOptions): FunctionToolDefinition[] {
  const all = rt.tools.definitions()
  if (!options.only) return all
  const only = new Set(options.only)
  return all.filter((d) => only.has(d.name))
}
