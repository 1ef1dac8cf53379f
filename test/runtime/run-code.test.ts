import { describe, expect, it } from 'vitest'
import { basicTools } from '../support/tools.js'
import { testRuntime, unmatchedCalls } from '../support/runtime.js'

describe('runCode: a program calls registered tools and returns a RunResult', () => {
  it('returns the value, the logs, the calls and an observation', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const r = await rt.runCode('const s = await tools.add({ a: 2, b: 3 })\nconsole.log("sum", s)\nreturn { s }')
    expect(r.ok).toBe(true)
    expect(r.error).toBeNull()
    expect(r.value).toEqual({ s: 5 })
    expect(r.logs).toEqual([{ level: 'log', text: 'sum 5' }])
    expect(r.calls).toMatchObject([{ name: 'add', args: { a: 2, b: 3 }, ok: true, result: 5 }])
    expect(r.observation).toBe('sum 5\n\nReturn value:\n{"s":5}')
    expect(r.events.map((e) => e.type)).toEqual(['run/start', 'tool/call', 'tool/result', 'console', 'run/end'])
  })

  it('accepts zod and raw JSON Schema parameters alike', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const r = await rt.runCode('return (await tools.read_note({ key: "k" })).text')
    expect(r.value).toBe('note k')
  })

  it('rejects arguments that break the schema with EINVAL naming the field, and never executes', async () => {
    let executed = 0
    const rt = await testRuntime({
      tools: [
        {
          name: 'strict',
          description: 'x',
          parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
          execute: () => ++executed,
        },
      ],
    })
    const r = await rt.runCode(`
      try { await tools.strict({ n: "seven" }) } catch (e) { return [e.name, e.toolName, e.code, e.message] }`)
    expect(executed).toBe(0)
    const [name, toolName, code, message] = r.value as string[]
    expect([name, toolName, code]).toEqual(['ToolCallError', 'strict', 'EINVAL'])
    expect(message).toContain('n: expected number, got string "seven"')
  })

  it('answers an unknown tool with ENOSYS and the closest names', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const r = await rt.runCode('await tools.read_nott({ key: "a" })')
    expect(r.ok).toBe(false)
    expect(r.error?.kind).toBe('runtime')
    expect(r.calls[0]?.error).toEqual({ code: 'ENOSYS', message: 'unknown tool "read_nott"; did you mean `read_note`?' })
  })

  it("turns a tool's throw into a ToolCallError carrying its message and code, with no host stack", async () => {
    const rt = await testRuntime({ tools: basicTools })
    const r = await rt.runCode(`
      const out = []
      for (const key of ['missing', 'boom']) {
        try { await tools.read_note({ key }) } catch (e) { out.push({ code: e.code, message: e.message, isTCE: e instanceof ToolCallError, stack: String(e.stack) }) }
      }
      return out`)
    const [missing, boom] = r.value as { code: string; message: string; isTCE: boolean; stack: string }[]
    expect(missing).toMatchObject({ code: 'ENOENT', message: 'no note "missing"', isTCE: true })
    expect(boom).toMatchObject({ code: 'ETOOL', message: 'the note store is down', isTCE: true })
    expect(missing!.stack).not.toMatch(/\/work\/|node_modules|runtime\/dispatch/)
  })

  it('lists every failed call in the observation even when the program caught it', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const r = await rt.runCode(`try { await tools.read_note({ key: 'missing' }) } catch {}\nreturn 'fine'`)
    expect(r.ok).toBe(true)
    expect(r.observation).toContain('Failed tool calls (1 of 1):\n- read_note({"key":"missing"}) → ENOENT: no note "missing"')
  })

  it('reports a runtime error with its message and the line in the user source', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const r = await rt.runCode('const a = 1\nconst b: any = undefined\n\nreturn b.c.d')
    expect(r.error).toMatchObject({ kind: 'runtime', line: 4 })
    expect(r.error?.message).toMatch(/TypeError: Cannot read properties of undefined/)
    expect(r.observation).toMatch(/^Error \(runtime, line 4\): TypeError/m)
  })

  it('reports a compile error with its line and runs nothing', async () => {
    let ran = false
    const rt = await testRuntime({ tools: [{ name: 't', description: '', parameters: { type: 'object' }, execute: () => (ran = true) }] })
    const r = await rt.runCode('await tools.t({})\nconst x = = 2')
    expect(r.error).toMatchObject({ kind: 'compile', line: 2 })
    expect(ran).toBe(false)
  })

  it('reports values JSON cannot hold instead of crashing', async () => {
    const rt = await testRuntime()
    const big = await rt.runCode('return { n: 10n }')
    expect(big.ok).toBe(true)
    expect(big.value).toEqual({ n: '10n' })
    expect(big.observation).toContain('Note: converted for JSON: BigInt→string "10n"')
    const cyc = await rt.runCode('const a: any = {}; a.self = a; return a')
    expect(cyc.ok).toBe(true)
    expect(cyc.value).toEqual({ self: '[Circular]' })
    expect(cyc.observation).toContain('cycle→"[Circular]"')
    const fn = await rt.runCode('return () => 1')
    expect(fn.value).toBeUndefined()
  })

  it('never loses the last console lines printed right before the program returns or throws', async () => {
    const rt = await testRuntime({ tools: basicTools })
    for (let i = 0; i < 40; i++) {
      const r = await rt.runCode(
        `await tools.add({ a: 1, b: 1 }); for (let j = 0; j < 5; j++) console.log('line', j); ${i % 2 ? 'return 1' : 'throw new Error("x")'}`,
      )
      expect(r.logs.map((l) => l.text)).toEqual(['line 0', 'line 1', 'line 2', 'line 3', 'line 4'])
    }
  })

  it('keeps the log invariant: every tool/call has exactly one tool/result', async () => {
    const rt = await testRuntime({ tools: basicTools })
    await rt.runCode(
      `await Promise.allSettled([tools.add({a:1,b:2}), tools.nope({}), tools.read_note({key:'missing'}), tools.add({a:'x'})])`,
    )
    expect(unmatchedCalls(rt.log.all())).toEqual([])
  })

  it('does not let one run see state left by another', async () => {
    const rt = await testRuntime()
    await rt.runCode('(globalThis as any).secret = 42; (Object.prototype as any).polluted = true; JSON.stringify = () => "x"')
    const r = await rt.runCode('return [typeof (globalThis as any).secret, "polluted" in {}, JSON.stringify({ a: 1 })]')
    expect(r.value).toEqual(['undefined', false, '{"a":1}'])
  })
})

describe('runCode: hooks see every call', () => {
  it('a pre-execute hook may deny with a code; the denial is listed even if caught', async () => {
    const rt = await testRuntime({ tools: basicTools })
    rt.hooks.on('pre-execute', (call) =>
      call.name === 'add' ? { deny: { code: 'EACCES', message: 'adding is not allowed here' } } : undefined,
    )
    const r = await rt.runCode('try { await tools.add({ a: 1, b: 1 }) } catch (e) { console.log(e.code) }')
    expect(r.logs[0]?.text).toBe('EACCES')
    expect(r.observation).toContain('Denied (1):\n- add({"a":1,"b":1}) → EACCES: adding is not allowed here')
  })

  it('a pre-execute hook may rewrite arguments, and sees id, name, args and origin', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const seen: unknown[] = []
    rt.hooks.on('pre-execute', (call) => {
      seen.push({ name: call.name, origin: call.origin, hasId: typeof call.id === 'string' && call.id.length > 0 })
      return call.name === 'add' ? { args: { a: 100, b: 1 } } : undefined
    })
    const r = await rt.runCode('return await tools.add({ a: 1, b: 1 })')
    expect(r.value).toBe(101)
    expect(seen).toEqual([{ name: 'add', origin: 'code', hasId: true }])
  })

  it('a post-execute hook may replace the result', async () => {
    const rt = await testRuntime({ tools: basicTools })
    rt.hooks.on('post-execute', (call, result) => (call.name === 'add' && result.ok ? { ok: true, value: 'redacted' } : undefined))
    expect((await rt.runCode('return await tools.add({ a: 1, b: 1 })')).value).toBe('redacted')
  })
})
