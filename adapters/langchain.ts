/**
 * LangChain: `langchainTools(rt, tool)` with `tool` from `@langchain/core/tools` — codeact imports nothing
 * of LangChain, so the caller hands in its `tool` factory and gets real `DynamicStructuredTool`s back, for
 * `model.bindTools(...)`, a `ToolNode` or `createAgent`. The model reads each call's `content`.
 */
import type { DynamicTool } from '@langchain/core/tools'
import type { JsonSchema, Runtime } from '../runtime/index.js'
import { selectDefinitions, type AdapterOptions } from './select.js'

/** What LangChain's `tool(func, fields)` is called with. */
export type LangChainToolFunc = (
  input: Record<string, unknown>,
  config?: { signal?: AbortSignal | undefined; toolCall?: { id?: string | undefined } | undefined },
) => Promise<string>
export interface LangChainToolFields {
  name: string
  description: string
  schema: JsonSchema
}

/**
 * `tool`'s last overload answers `DynamicStructuredTool | DynamicTool`; with an object schema it is always the
 * structured one, so the string-input `DynamicTool` is taken out of the type (a type-only import).
 */
export function langchainTools<T>(
  rt: Runtime,
  tool: (func: LangChainToolFunc, fields: LangChainToolFields) => T,
  options: AdapterOptions = {},
): Exclude<T, DynamicTool>[] {
  return selectDefinitions(rt, options).map((d) => {
    const made = tool(
      async (input, config) => (await rt.callTool(d.name, input, { callId: config?.toolCall?.id, signal: config?.signal })).content,
      // A copy: LangChain's validator annotates the schema object it is given.
      { name: d.name, description: d.description, schema: { ...structuredClone(d.parameters), type: 'object' } },
    )
    return made as Exclude<T, DynamicTool>
  })
}
