/**
 * The public API's types, as a user's editor sees them. `tsc` (make lint) and vitest's typecheck mode
 * (npm test) both run this file; a change that breaks an embedder's code fails here first.
 */
import { describe, expectTypeOf, test } from 'vitest'
import { z } from 'zod'
import {
  type AnyToolDefinition,
  type JsonValue,
  type Limits,
  type RunError,
  type RunErrorKind,
  type RunResult,
  type Runtime,
  type RuntimeOptions,
  type ToolContext,
  type ToolDefinition,
  createRuntime,
  defineTool,
} from '../../runtime/index.js'

describe('defineTool', () => {
  test('infers execute’s arguments from a zod schema', () => {
    const tool = defineTool({
      name: 'lookup_rates',
      description: 'Exchange rates for a base currency.',
      parameters: z.object({ base: z.string().length(3), date: z.string().optional() }),
      execute: async (args, ctx) => {
        expectTypeOf(args).toEqualTypeOf<{ base: string; date?: string | undefined }>()
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>()
        return { EUR: 0.92 }
      },
    })
    expectTypeOf(tool).toEqualTypeOf<ToolDefinition<{ base: string; date?: string | undefined }, { EUR: number }>>()
  })

  test('a JSON Schema tool takes the argument type it is given', () => {
    const tool = defineTool<{ path: string }, string>({
      name: 'read',
      description: 'Read a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ path: string }>()
        return 'text'
      },
    })
    expectTypeOf(tool.execute).returns.toEqualTypeOf<string | Promise<string>>()
  })

  test('a zod tool fits the registry without a cast', () => {
    const tool = defineTool({ name: 'noop', description: 'Nothing.', parameters: z.object({}), execute: () => null })
    expectTypeOf(tool).toExtend<AnyToolDefinition>()
    expectTypeOf<[typeof tool]>().toExtend<NonNullable<RuntimeOptions['tools']>>()
  })

  test('the context names its call and how it can end the turn', () => {
    expectTypeOf<ToolContext['callId']>().toEqualTypeOf<string>()
    expectTypeOf<ToolContext['parentId']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<ToolContext['origin']>().toEqualTypeOf<'code' | 'native'>()
    expectTypeOf<ToolContext['signal']>().toEqualTypeOf<AbortSignal>()
  })
})

describe('createRuntime', () => {
  test('every option is optional, and the result is a Runtime', () => {
    expectTypeOf(createRuntime).parameter(0).toEqualTypeOf<RuntimeOptions | undefined>()
    expectTypeOf(createRuntime).returns.resolves.toEqualTypeOf<Runtime>()
  })

  test('limits are partial; the sandbox is a name or a backend', () => {
    expectTypeOf<{ timeoutMs: number }>().toExtend<NonNullable<RuntimeOptions['limits']>>()
    expectTypeOf<Partial<Limits>>().toEqualTypeOf<NonNullable<RuntimeOptions['limits']>>()
    expectTypeOf<'isolate'>().toExtend<NonNullable<RuntimeOptions['sandbox']>>()
    expectTypeOf<'docker'>().toExtend<NonNullable<RuntimeOptions['sandbox']>>()
    expectTypeOf<'error' | 'warn' | 'off'>().toEqualTypeOf<NonNullable<RuntimeOptions['typecheck']>>()
  })

  test('runCode resolves to a RunResult and takes a signal', () => {
    expectTypeOf<Runtime['runCode']>().returns.resolves.toEqualTypeOf<RunResult>()
    expectTypeOf<{ signal: AbortSignal }>().toExtend<NonNullable<Parameters<Runtime['runCode']>[1]>>()
  })
})

describe('RunResult', () => {
  test('carries the value, the observation and the error as a discriminated kind', () => {
    expectTypeOf<RunResult['ok']>().toEqualTypeOf<boolean>()
    expectTypeOf<RunResult['value']>().toEqualTypeOf<JsonValue | undefined>()
    expectTypeOf<RunResult['observation']>().toEqualTypeOf<string>()
    expectTypeOf<RunResult['error']>().toEqualTypeOf<RunError | null>()
    expectTypeOf<RunErrorKind>().toEqualTypeOf<'compile' | 'type' | 'runtime' | 'timeout' | 'memory' | 'aborted' | 'sandbox_unavailable'>()
  })

  test('calls are records with the errno-style error of a failed call', () => {
    type Call = RunResult['calls'][number]
    expectTypeOf<Call['error']>().toEqualTypeOf<{ code: string; message: string } | undefined>()
    expectTypeOf<Call['args']>().toEqualTypeOf<JsonValue>()
  })
})
