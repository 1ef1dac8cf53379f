/**
 * LangChain: `langchainTools(rt, tool)` with `tool` from `@langchain/core/tools` — codeact imports nothing
 * of LangChain, so the caller hands in its `tool` factory and gets real `DynamicStructuredTool`s back, for
 * `model.bindTools(...)`, a `ToolNode` or `createAgent`. The model reads each call's `content`.
 */
import type { JsonSchema, Runtime } from '../runtime/index.js'
import { selectDefinitions, type AdapterOptions } from './ai-sdk.js'

/** What LangChain's `tool(func, fields)` is called with. */
export type LangChainToolFunc = (input: Record<string, unknown>, config?: { signal?: AbortSignal | undefined; toolCall?: { id?: string | undefined } | undefined }) => Promise<string>
export interface LangChainToolFields {
  name: string
  description: string
  schema: JsonSchema
}

export function langchainTools<T>(rt: Runtime, tool: (func: LangChainToolFunc, fields: LangChainToolFields) => T, options: AdapterOptions = {}): T[] {
  return selectDefinitions(rt, options).map((d) =>
    tool(
      async (input, config) => {
        const callId = config?.toolCall?.id
        const result = await rt.callTool(d.name, input, { ...(callId ? { callId } : {}), ...(config?.signal ? { signal: config.signal } : {}) })
        return result.content
      },
      // A copy: LangChain's validator annotates the schema object it is given.
      { name: d.name, description: d.description, schema: { ...structuredClone(d.parameters), type: 'object' } },
    ),
  )
}
