/**
 * rt.callTool: one call through validation, hooks, scheduler and log, answering the structured result;
 * the Standard Schema on every definition; which schemas OpenAI strict mode is turned on for.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { isStrictCompatible, toOpenAIResponsesTools, toOpenAITools } from '../../sdk/adapters.js'
import { RUN_CODE_PARAMETERS } from '../../sdk/run-code-tool.js'
import { defineTool } from '../../vocabulary/define-tool.js'
import type { RunEvent } from '../../vocabulary/types.js'
import { basicTools } from '../support/tools.js'
import { testRuntime, unmatchedCalls } from '../support/runtime.js'

const eventsOf = (events: readonly RunEvent[], id: string) =>
  events.filter((e) => (e.type === 'tool/call' || e.type === 'tool/result') && 'id' in e.data && e.data.id === id).map((e) => e.type)

describe('rt.callTool', () => {
  it('answers the value, the compact content a model reads, and logs the call under the given id', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const r = await rt.callTool('read_note', { key: 'a' }, { callId: 'fw-1' })
    expect(r).toEqual({
      ok: true,
      value: { key: 'a', text: 'note a' },
      content: '{"key":"a","text":"note a"}',
      isError: false,
      denied: false,
      concludesTurn: false,
    })
    expect(eventsOf(rt.log.all(), 'fw-1')).toEqual(['tool/call', 'tool/result'])
    const call = rt.log.all().find((e) => e.type === 'tool/call' && 'id' in e.data && e.data.id === 'fw-1')
    expect(call?.data).toMatchObject({ origin: 'native', name: 'read_note' })
  })

  it('goes through validation and both hook stages, like every call', async () => {
    const rt = await testRuntime({ tools: basicTools })
    rt.hooks.on('pre-execute', (c) => (c.name === 'echo' ? { args: { rewritten: true } } : undefined))
    rt.hooks.on('pre-execute', (c) =>
      c.name === 'read_note' && JSON.stringify(c.args).includes('secret')
        ? { deny: { code: 'EACCES', message: 'secret notes are off limits' } }
        : undefined,
    )
    rt.hooks.on('post-execute', (c, result) => (c.name === 'add' && result.ok ? { ok: true, value: 'redacted' } : undefined))
    expect(await rt.callTool('echo', { original: 1 })).toMatchObject({ ok: true, value: { rewritten: true } })
    expect(await rt.callTool('read_note', { key: 'secret' })).toEqual({
      ok: false,
      code: 'EACCES',
      message: 'secret notes are off limits',
      content: 'Error (EACCES): secret notes are off limits',
      isError: true,
      denied: true,
      concludesTurn: false,
    })
    expect(await rt.callTool('add', { a: 1, b: 2 })).toMatchObject({ ok: true, value: 'redacted' })
    expect(await rt.callTool('add', { a: 'one', b: 2 })).toMatchObject({
      ok: false,
      code: 'EINVAL',
      denied: false,
      message: expect.stringMatching(/add: invalid arguments: a: .*"one"/),
    })
    expect(await rt.callTool('ad', { a: 1, b: 2 })).toMatchObject({
      ok: false,
      code: 'ENOSYS',
      message: expect.stringContaining('did you mean `add`'),
    })
    expect(await rt.callTool('add', { a: 1n, b: 2 })).toMatchObject({
      ok: false,
      code: 'EINVAL',
      message: expect.stringContaining('not JSON'),
    })
    expect(unmatchedCalls(rt.log.all())).toEqual([])
  })

  it('a denial inside a successful call sets denied; a tool that ends the turn says so', async () => {
    const rt = await testRuntime({
      tools: [
        defineTool({
          name: 'sh',
          description: '',
          parameters: z.object({}),
          execute: (_a, ctx) => (ctx.reportDenial({ code: 'EROFS', message: 'Read-only file system' }), { exit_code: 1 }),
        }),
        defineTool({ name: 'final', description: '', parameters: z.object({}), execute: (_a, ctx) => (ctx.concludeTurn(), 'bye') }),
      ],
    })
    expect(await rt.callTool('sh', {})).toMatchObject({ ok: true, denied: true, value: { exit_code: 1 } })
    expect(await rt.callTool('final', {})).toMatchObject({ ok: true, denied: false, concludesTurn: true })
  })

  it('honours the abort signal: the tool sees it, the call settles as ECANCELED', async () => {
    let sawAbort = false
    const rt = await testRuntime({
      tools: [
        defineTool({
          name: 'wait',
          description: '',
          parameters: z.object({}),
          execute: (_a, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve((sawAbort = true)))),
        }),
      ],
    })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    expect(await rt.callTool('wait', {}, { signal: controller.signal })).toMatchObject({ ok: false, code: 'ECANCELED', denied: false })
    expect(sawAbort).toBe(true)
    expect(await rt.callTool('wait', {}, { signal: AbortSignal.abort() })).toMatchObject({
      ok: false,
      code: 'ECANCELED',
      message: 'wait was cancelled before it started',
    })
  })

  it('runs run_code: the value is the run, the content its observation, isError when the program failed', async () => {
    const rt = await testRuntime({ tools: basicTools, mode: 'code' })
    const good = await rt.callTool('run_code', { code: 'return await tools.add({ a: 1, b: 1 })' }, { callId: 'rc' })
    expect(good).toMatchObject({ ok: true, isError: false, content: 'Return value:\n2' })
    const sub = rt.log.all().find((e) => e.type === 'tool/call' && 'origin' in e.data && e.data.origin === 'code')
    expect(sub?.data).toMatchObject({ name: 'add', parentId: 'rc' })
    expect(await rt.callTool('run_code', { code: 'throw new Error("bad")' })).toMatchObject({
      ok: true,
      isError: true,
      content: expect.stringContaining('bad'),
    })
    expect(await rt.callTool('run_code', { code: 'return 1', description: 'extra' })).toMatchObject({ ok: false, code: 'EINVAL' })
    // Code mode routes a direct call back to run_code.
    expect(await rt.callTool('add', { a: 1, b: 1 })).toMatchObject({
      ok: false,
      code: 'ENOSYS',
      message: expect.stringContaining('run_code'),
    })
  })

  it('refuses once the runtime is closed (API misuse throws)', async () => {
    const rt = await testRuntime({ tools: basicTools })
    await rt.close()
    await expect(rt.callTool('add', { a: 1, b: 1 })).rejects.toThrow(/closed/)
  })
})

describe('Standard Schema on every definition', () => {
  it("validates with the dispatcher's validator and hands out the JSON Schema; stays out of JSON", async () => {
    const rt = await testRuntime({ tools: basicTools })
    const byName = new Map(rt.tools.definitions().map((d) => [d.name, d]))
    const add = byName.get('add')!['inputSchema']['~standard']
    expect(add.version).toBe(1)
    expect(await add.validate({ a: 1, b: 2 })).toEqual({ value: { a: 1, b: 2 } })
    const bad = await add.validate({ a: 'x' })
    expect(bad.issues?.[0]?.message).toMatch(/a: .*"x"/)
    expect(add.jsonSchema.input({ target: 'draft-2020-12' })).toMatchObject({ type: 'object', required: ['a', 'b'] })
    const note = byName.get('read_note')!
    expect(note.inputSchema['~standard'].jsonSchema.input({ target: 'draft-07' })).toEqual(note.parameters)
    expect(Object.keys(note)).toEqual(['name', 'description', 'parameters'])
    expect(JSON.parse(JSON.stringify(note))).toEqual({ name: note.name, description: note.description, parameters: note.parameters })
    const runCode = rt.runCodeTool().inputSchema['~standard']
    expect(await runCode.validate({ code: 'return 1' })).toEqual({ value: { code: 'return 1' } })
    expect('issues' in (await runCode.validate({}))).toBe(true)
    // A caller mutating the JSON Schema it was handed does not change the tool's.
    const copy = runCode.jsonSchema.input({ target: 'draft-07' })
    copy.required = []
    expect(rt.runCodeTool().parameters.required).toEqual(['code'])
  })
})

describe('OpenAI strict mode', () => {
  it("run_code's schema is strict-compatible: one required field, closed object", () => {
    expect(RUN_CODE_PARAMETERS).toEqual({
      type: 'object',
      properties: { code: expect.objectContaining({ type: 'string' }) },
      required: ['code'],
      additionalProperties: false,
    })
    expect(isStrictCompatible(RUN_CODE_PARAMETERS)).toBe(true)
  })

  it('is turned on only where the schema allows it, all the way down', () => {
    const closed = {
      type: 'object',
      properties: { a: { type: 'object', properties: { b: { type: 'string' } }, required: ['b'], additionalProperties: false } },
      required: ['a'],
      additionalProperties: false,
    }
    expect(isStrictCompatible(closed)).toBe(true)
    expect(isStrictCompatible({ ...closed, required: [] })).toBe(false)
    expect(isStrictCompatible({ ...closed, additionalProperties: true })).toBe(false)
    expect(isStrictCompatible({ ...closed, properties: { a: { type: 'object', properties: { b: { type: 'string' } } } } })).toBe(false)
    expect(
      isStrictCompatible({
        type: 'object',
        properties: { list: { type: 'array', items: { type: 'object' } } },
        required: ['list'],
        additionalProperties: false,
      }),
    ).toBe(false)
    expect(
      isStrictCompatible({
        type: 'object',
        properties: { type: { type: 'string' }, properties: { type: 'string' } },
        required: ['type', 'properties'],
        additionalProperties: false,
      }),
    ).toBe(true)
    expect(isStrictCompatible({ type: 'object', patternProperties: { '.*': {} }, additionalProperties: false })).toBe(false)
  })

  it('request tools carry the flag; freeform offers run_code as a custom tool', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const chat = toOpenAITools(rt.tools.definitions(), { freeform: ['run_code'] })
    const flags = Object.fromEntries(
      chat.map((t) => [t.type === 'function' ? t.function.name : t.custom.name, t.type === 'function' ? t.function.strict : 'custom']),
    )
    // add is a zod object (unknown keys allowed, so not closed), echo an open object, read_note closed and fully required.
    expect(flags).toEqual({ add: false, echo: false, read_note: true, run_code: 'custom' })
    const responses = toOpenAIResponsesTools(rt.tools.definitions())
    expect(responses.find((t) => t.name === 'run_code')).toMatchObject({ type: 'function', strict: true, parameters: RUN_CODE_PARAMETERS })
    const custom = toOpenAIResponsesTools(rt.tools.definitions(), { freeform: ['run_code'] }).find((t) => t.name === 'run_code')
    expect(custom).toMatchObject({ type: 'custom', format: { type: 'text' }, description: expect.stringContaining('not JSON') })
  })
})
