import { describe, expect, it } from 'vitest'
import { replayObservations } from '../../runtime/replay.js'
import { parseJSONL } from '../../runtime/event-log.js'
import { basicTools, timedTools, type Timeline } from '../support/tools.js'
import { testRuntime, unmatchedCalls } from '../support/runtime.js'

const openai = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
})
const anthropic = (id: string, name: string, input: unknown) => ({ type: 'tool_use' as const, id, name, input })
const sleep = (id: string, ms: number) => openai(id, 'sleep', { id, ms })

describe('executeToolCalls: the tool_calls of one assistant message', () => {
  it('answers OpenAI calls with role:"tool" messages in the model order', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const out = await rt.executeToolCalls([openai('c1', 'add', { a: 1, b: 2 }), openai('c2', 'read_note', { key: 'x' })])
    expect([...out]).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: '3' },
      { role: 'tool', tool_call_id: 'c2', content: '{"key":"x","text":"note x"}' },
    ])
    expect(out.concludesTurn).toBe(false)
  })

  it('answers Anthropic tool_use blocks with tool_result blocks', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const out = await rt.executeToolCalls([anthropic('t1', 'add', { a: 1, b: 2 }), anthropic('t2', 'read_note', { key: 'missing' })])
    expect([...out]).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: '3', is_error: false },
      { type: 'tool_result', tool_use_id: 't2', content: 'Error (ENOENT): no note "missing"', is_error: true },
    ])
  })

  it("turns every failure into that call's content, never an exception", async () => {
    const rt = await testRuntime({
      tools: [
        ...basicTools,
        { name: 'hang', description: '', parameters: { type: 'object' }, timeoutMs: 200, execute: () => new Promise(() => {}) },
      ],
    })
    rt.hooks.on('pre-execute', (c) => (c.name === 'echo' ? { deny: { code: 'EPERM', message: 'echo is off' } } : undefined))
    const out = await rt.executeToolCalls([
      openai('a', 'add', '{"a": 1,'),
      openai('b', 'add', { a: 'one', b: 2 }),
      openai('c', 'ad', { a: 1, b: 2 }),
      openai('d', 'read_note', { key: 'boom' }),
      openai('e', 'echo', {}),
      openai('f', 'hang', {}),
    ])
    const contents = out.map((m) => m.content)
    expect(contents[0]).toMatch(/^Error \(EINVAL\): add: arguments are not valid JSON/)
    expect(contents[1]).toMatch(/^Error \(EINVAL\): add: invalid arguments: a: .*got string "one"/)
    expect(contents[2]).toBe('Error (ENOSYS): unknown tool "ad"; did you mean `add`?')
    expect(contents[3]).toBe('Error (ETOOL): the note store is down')
    expect(contents[4]).toBe('Error (EPERM): echo is off')
    expect(contents[5]).toBe('Error (ETIMEDOUT): hang timed out after 200 ms')
    expect(unmatchedCalls(rt.log.all())).toEqual([])
  })

  it('throws only on misuse of the API itself; an element it cannot run gets an error answer of its own', async () => {
    const rt = await testRuntime({ tools: basicTools })
    await expect(rt.executeToolCalls('nope' as never)).rejects.toThrow(/array/)
    const out = await rt.executeToolCalls([{ id: 'x' }, openai('c1', 'add', { a: 1, b: 2 })] as never)
    expect([...out]).toEqual([
      { role: 'tool', tool_call_id: 'x', content: 'Error (EINVAL): not a tool call codeact can run: {"id":"x"}' },
      { role: 'tool', tool_call_id: 'c1', content: '3' },
    ])
    expect(unmatchedCalls(rt.log.all())).toEqual([])
  })

  it('overlaps parallel calls in a bounded pool and commits in model order', async () => {
    const timeline: Timeline = { events: [], peak: 0 }
    const rt = await testRuntime({ tools: timedTools(timeline), limits: { maxParallelToolCalls: 3 } })
    const order: string[] = []
    rt.on('event', (e) => e.type === 'tool/result' && order.push((e.data as { id: string }).id))
    const out = await rt.executeToolCalls([sleep('s1', 300), sleep('s2', 50), sleep('s3', 150), sleep('s4', 10), sleep('s5', 10)])
    expect(out.map((m) => m.tool_call_id)).toEqual(['s1', 's2', 's3', 's4', 's5'])
    expect(order).toEqual(['s1', 's2', 's3', 's4', 's5'])
    expect(timeline.peak).toBe(3)
    // s4 started before s1 ended: the pool rolls instead of waiting for a whole group.
    const t = (id: string, at: 'start' | 'end') => timeline.events.find((e) => e.id === id && e.at === at)!.t
    expect(t('s4', 'start')).toBeLessThan(t('s1', 'end'))
  })

  it('runs an exclusive call alone: after every earlier call, before every later one', async () => {
    const timeline: Timeline = { events: [], peak: 0 }
    const rt = await testRuntime({ tools: timedTools(timeline) })
    await rt.executeToolCalls([sleep('a', 100), sleep('b', 100), openai('x', 'deploy', { id: 'x', ms: 50 }), sleep('c', 10)])
    const t = (id: string, at: 'start' | 'end') => timeline.events.find((e) => e.id === id && e.at === at)!.t
    expect(t('x', 'start')).toBeGreaterThanOrEqual(Math.max(t('a', 'end'), t('b', 'end')))
    expect(t('c', 'start')).toBeGreaterThanOrEqual(t('x', 'end'))
  })

  it('runs pre-execute hooks one at a time in model order, so a stateful guard cannot be raced', async () => {
    const timeline: Timeline = { events: [], peak: 0 }
    const rt = await testRuntime({ tools: timedTools(timeline) })
    let failures = 0
    let inHook = 0
    let overlapped = false
    rt.hooks.on('pre-execute', async (call) => {
      inHook++
      overlapped ||= inHook > 1
      await new Promise((r) => setTimeout(r, 5))
      inHook--
      if (call.name === 'deploy' && failures >= 2) return { deny: { code: 'EPERM', message: 'two deploys failed; refusing more' } }
      return undefined
    })
    rt.hooks.on('post-execute', (call, result) => void (call.name === 'deploy' && !result.ok && failures++))
    const out = await rt.executeToolCalls(['d1', 'd2', 'd3', 'd4'].map((id) => openai(id, 'deploy', { id, ms: 20, fail: true })))
    expect(out.map((m) => m.content)).toEqual([
      'Error (EDEPLOY): deploy d1 failed',
      'Error (EDEPLOY): deploy d2 failed',
      'Error (EPERM): two deploys failed; refusing more',
      'Error (EPERM): two deploys failed; refusing more',
    ])
    expect(overlapped).toBe(false)
  })

  it('cancels: started calls are told and settle as ECANCELED, unstarted ones never run', async () => {
    const timeline: Timeline = { events: [], peak: 0 }
    const rt = await testRuntime({ tools: timedTools(timeline), limits: { maxParallelToolCalls: 2 } })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    const started = Date.now()
    const out = await rt.executeToolCalls([sleep('a', 5000), sleep('b', 5000), sleep('c', 5000)], { signal: controller.signal })
    expect(Date.now() - started).toBeLessThan(1500)
    expect(out.map((m) => m.content)).toEqual([
      'Error (ECANCELED): sleep was cancelled',
      'Error (ECANCELED): sleep was cancelled',
      'Error (ECANCELED): sleep was cancelled before it started',
    ])
    expect(timeline.events.filter((e) => e.at === 'start').map((e) => e.id)).toEqual(['a', 'b'])
    expect(unmatchedCalls(rt.log.all())).toEqual([])
  })

  it('gives every call a synthetic ECANCELED when the signal is already aborted', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const out = await rt.executeToolCalls([openai('a', 'add', { a: 1, b: 1 })], { signal: AbortSignal.abort() })
    expect(out[0]!.content).toMatch(/ECANCELED/)
  })

  it('reports a concluded turn', async () => {
    const rt = await testRuntime({
      tools: [
        {
          name: 'final_answer',
          description: '',
          parameters: { type: 'object' },
          execute: (_a: unknown, ctx: { concludeTurn(): void }) => (ctx.concludeTurn(), 'done'),
        },
      ],
    })
    const out = await rt.executeToolCalls([openai('f', 'final_answer', {})])
    expect(out.concludesTurn).toBe(true)
  })
})

describe('run_code as a native tool', () => {
  it('runs the program; its observation is the content, its sub-calls sit under the outer call', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const out = await rt.executeToolCalls([
      openai('rc1', 'run_code', { code: 'console.log("hi")\nreturn await tools.add({ a: 2, b: 2 })' }),
    ])
    expect(out[0]!.content).toBe('hi\n\nReturn value:\n4')
    const sub = rt.log.all().find((e) => e.type === 'tool/call' && (e.data as { origin: string }).origin === 'code')
    expect(sub?.data).toMatchObject({ name: 'add', parentId: 'rc1' })
  })

  it('describes how to write a program and embeds the SDK declarations', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const def = rt.runCodeTool()
    expect(def.name).toBe('run_code')
    expect(def.parameters).toMatchObject({ type: 'object', required: ['code'] })
    expect(def.description).toContain('body of an async function')
    expect(def.description).toContain(rt.sdk.declarations().trim())
  })

  it('in code mode refuses direct calls of other tools with a message that routes back to run_code', async () => {
    const rt = await testRuntime({ tools: basicTools, mode: 'code' })
    const out = await rt.executeToolCalls([openai('x', 'add', { a: 1, b: 1 })])
    expect(out[0]!.content).toBe(
      'Error (ENOSYS): only `run_code` is callable directly; call `tools.add(…)` from inside a run_code program instead',
    )
    expect(rt.tools.definitions().map((d) => d.name)).toEqual(['run_code'])
  })

  it('is never callable from inside a program', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const r = await rt.runCode('return await tools.run_code({ code: "return 1" })')
    expect(r.calls[0]?.error?.code).toBe('ENOSYS')
  })
})

describe('replay: every observation rebuilds from the log alone, byte for byte', () => {
  it('covers runs, parallel native calls, denials, timeouts and aborts', async () => {
    const { mkdtempSync, readFileSync } = await import('node:fs')
    const { join } = await import('node:path')
    const { tmpdir } = await import('node:os')
    const file = join(mkdtempSync(join(tmpdir(), 'codeact-replay-')), 'log.jsonl')
    const timeline: Timeline = { events: [], peak: 0 }
    const rt = await testRuntime({ tools: [...basicTools, ...timedTools(timeline)], logFile: file, limits: { timeoutMs: 400 } })
    rt.hooks.on('pre-execute', (c) => (c.name === 'echo' ? { deny: { code: 'EACCES', message: 'no echo' } } : undefined))
    const seen: string[] = []
    seen.push((await rt.runCode('console.log("a"); try { await tools.echo({}) } catch {}; return [1, 2]')).observation)
    seen.push((await rt.runCode('await tools.sleep({ id: "t", ms: 5000 })')).observation)
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    seen.push(...(await rt.executeToolCalls([sleep('p1', 30), sleep('p2', 10), openai('p3', 'echo', {})])).map((m) => m.content))
    seen.push(
      ...(
        await rt.executeToolCalls([sleep('q1', 5000), openai('q2', 'run_code', { code: 'return 7' })], { signal: controller.signal })
      ).map((m) => m.content),
    )
    seen.push(...(await rt.executeToolCalls([openai('r1', 'run_code', { code: 'throw new Error("bad")' })])).map((m) => m.content))
    const replayed = replayObservations(parseJSONL(readFileSync(file, 'utf8'))).map((o) => o.content)
    expect(replayed).toEqual(seen)
    expect(replayed.length).toBe(8)
  })
})
