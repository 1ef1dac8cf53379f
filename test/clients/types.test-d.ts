/**
 * Type tests (checked by `tsc -p tsconfig.json`, i.e. `npm run lint`): what codeact hands out and takes in is
 * assignable to and from the official SDKs' own types, with no cast anywhere in this file.
 */
import type { ContentBlock, MessageParam, Tool as AnthropicSdkTool, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages'
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec'
import type { Tool as AiTool, ToolSet } from 'ai'
import type { FunctionTool, Tool as AgentsTool } from '@openai/agents'
import type { AIMessage, ToolCall as LangChainSdkToolCall } from '@langchain/core/messages'
import type { DynamicStructuredTool, StructuredToolInterface } from '@langchain/core/tools'
import type { tool as langchainTool } from '@langchain/core/tools'
import type OpenAI from 'openai'
import type {
  ChatCompletionMessage,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions'
import type { Response, ResponseInputItem, Tool as ResponsesTool } from 'openai/resources/responses/responses'
import { describe, expectTypeOf, it } from 'vitest'
import type { CallToolResult, Runtime } from '../../runtime/index.js'
import { RUN_CODE_PARAMETERS, toAnthropicTools, toOpenAIResponsesTools, toOpenAITools } from '../../runtime/index.js'
import { aiSdkTools } from '../../adapters/ai-sdk.js'
import { langchainTools } from '../../adapters/langchain.js'
import { openaiAgentsTools } from '../../adapters/openai-agents.js'

declare const rt: Runtime
declare const msg: ChatCompletionMessage
declare const response: Response
declare const content: ContentBlock[]
declare const ai: AIMessage
declare const lcTool: typeof langchainTool

describe('request tools are the official request types', () => {
  it('OpenAI Chat, Responses and Anthropic', () => {
    expectTypeOf(toOpenAITools(rt.tools.definitions())).toExtend<ChatCompletionTool[]>()
    expectTypeOf(toOpenAITools(rt.tools.definitions(), { freeform: ['run_code'] })).toExtend<
      OpenAI.Chat.ChatCompletionCreateParams['tools']
    >()
    expectTypeOf(toOpenAIResponsesTools(rt.tools.definitions(), { freeform: ['run_code'] })).toExtend<ResponsesTool[]>()
    expectTypeOf(toAnthropicTools(rt.tools.definitions())).toExtend<AnthropicSdkTool[]>()
  })

  it('run_code schema and definitions offer a Standard Schema with JSON Schema', () => {
    expectTypeOf(rt.runCodeTool().inputSchema).toExtend<StandardSchemaV1<unknown, Record<string, unknown>>>()
    expectTypeOf(rt.runCodeTool().inputSchema).toExtend<StandardJSONSchemaV1>()
    expectTypeOf(RUN_CODE_PARAMETERS.required).toEqualTypeOf<['code']>()
    expectTypeOf(RUN_CODE_PARAMETERS.additionalProperties).toEqualTypeOf<false>()
  })
})

describe('executeToolCalls takes what the SDKs hand back and answers in their types', () => {
  it('OpenAI Chat tool_calls (function and custom), even when undefined', async () => {
    const answers = await rt.executeToolCalls(msg.tool_calls)
    expectTypeOf(answers).toExtend<ChatCompletionToolMessageParam[]>()
    expectTypeOf(answers).toExtend<ChatCompletionMessageParam[]>()
  })

  it('OpenAI Responses output items, passed whole', async () => {
    const answers = await rt.executeToolCalls(response.output)
    expectTypeOf(answers).toExtend<ResponseInputItem[]>()
    expectTypeOf(answers[0]!.type).toEqualTypeOf<'function_call_output' | 'custom_tool_call_output'>()
  })

  it('Anthropic content blocks, passed whole', async () => {
    const answers = await rt.executeToolCalls(content)
    expectTypeOf(answers).toExtend<ToolResultBlockParam[]>()
    const next: MessageParam = { role: 'user', content: answers }
    expectTypeOf(next).toExtend<MessageParam>()
  })

  it('LangChain tool_calls', async () => {
    const answers = await rt.executeToolCalls(ai.tool_calls)
    expectTypeOf(answers[0]!.tool_call_id).toEqualTypeOf<string>()
    expectTypeOf<LangChainSdkToolCall[]>().toExtend<Parameters<typeof rt.executeToolCalls<LangChainSdkToolCall>>[0]>()
  })

  it('callTool answers the structured result', async () => {
    const r = await rt.callTool('add', { a: 1, b: 2 })
    expectTypeOf(r).toEqualTypeOf<CallToolResult>()
    if (!r.ok) expectTypeOf(r.code).toEqualTypeOf<string>()
  })
})

describe("adapters are the frameworks' tool types", () => {
  it('AI SDK ToolSet', () => {
    expectTypeOf(aiSdkTools(rt)).toExtend<ToolSet>()
    expectTypeOf(aiSdkTools(rt)['run_code']!).toExtend<AiTool>()
  })
  it('OpenAI Agents SDK tools', () => {
    expectTypeOf(openaiAgentsTools(rt)).toExtend<FunctionTool[]>()
    expectTypeOf(openaiAgentsTools(rt)).toExtend<AgentsTool[]>()
  })
  it('LangChain tools from its own factory', () => {
    expectTypeOf(langchainTools(rt, lcTool)).toExtend<DynamicStructuredTool[]>()
    expectTypeOf(langchainTools(rt, lcTool)).toExtend<StructuredToolInterface[]>()
  })
})
