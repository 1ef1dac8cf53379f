// The standard globals the sandbox offers (timers, URL, TextEncoder/Decoder, atob/btoa, structuredClone,
// queueMicrotask) are implemented inside it; attacked here as a program would: floods, huge delays, timers
// left behind for the next run, strings as timer code, cycles and depth, giant inputs, poisoned intrinsics.
import { describe, expect, it } from 'vitest'
import { testRuntime } from '../support/runtime.js'

async function run(code: string, limits = {}) {
  const rt = await testRuntime({ tools: [], limits: { timeoutMs: 8000, ...limits } })
  return rt.runCode(code)
}

describe('timers', () => {
  it('a timer flood is capped at 1000 pending timers, and the run still ends', async () => {
    const r = await run(`let n = 0
      try { for (;;) { setTimeout(() => {}, 10); n++ } } catch (e) { return [n, e.name] }`)
    expect(r.value).toEqual([1000, 'RangeError'])
  })

  it('an interval at 0 ms cannot spin the host; cleared, the run ends', async () => {
    const r = await run(`let n = 0
      const id = setInterval(() => { n++ }, 0)
      await new Promise((r) => setTimeout(r, 200))
      clearInterval(id)
      return n > 0 && n < 100000`)
    expect(r.value).toBe(true)
  })

  it('a delay beyond the run never fires early: the run times out, it does not run the callback', async () => {
    const r = await run(`setTimeout(() => console.log('fired'), 2 ** 40); return 'returned'`, { timeoutMs: 1500 })
    expect(r.error?.kind).toBe('timeout')
    expect(r.logs).toEqual([])
    const cleared = await run(`const id = setTimeout(() => console.log('fired'), 2 ** 40); clearTimeout(id); return 'ok'`)
    expect(cleared.value).toBe('ok')
  })

  it('a timer left by one run never fires in the next', async () => {
    const rt = await testRuntime({ tools: [] })
    const first = await rt.runCode(`setInterval(() => console.log('tick from run 1'), 5); return 1`)
    expect(first.value).toBe(1)
    const ticks = first.logs.length
    const second = await rt.runCode(`await new Promise((r) => setTimeout(r, 100)); return 2`)
    expect(second.logs).toEqual([])
    expect(second.value).toBe(2)
    expect(first.logs.length).toBe(ticks)
  })

  it('takes no code strings, and a throwing callback fails the run with its message', async () => {
    const str = await run(`try { setTimeout('globalThis.x = 1', 0) } catch (e) { return e.name + ': ' + e.message }`)
    expect(str.value).toMatch(/^TypeError: .*must be a function/)
    const thrown = await run(`setTimeout(() => { throw new Error('from a timer') }, 5); await new Promise((r) => setTimeout(r, 50))`)
    expect(thrown.error?.message).toMatch(/from a timer/)
  })

  it('orders queueMicrotask before timers, as the platform does', async () => {
    const r = await run(`const order = []
      setTimeout(() => order.push('macro'), 0)
      queueMicrotask(() => order.push('micro'))
      order.push('sync')
      await new Promise((r) => setTimeout(r, 20))
      return order`)
    expect(r.value).toEqual(['sync', 'micro', 'macro'])
  })

  it('keeps working when the program poisons Map, Array and Promise intrinsics', async () => {
    const r = await run(`const m = new Map([[1, 2]]), s = new Set([3])
      Map.prototype.get = () => undefined
      Map.prototype.set = function () { return this }
      Array.prototype.push = function () { throw new Error('push') }
      Object.defineProperty(Array.prototype, '0', { set() { throw new Error('index setter') }, configurable: true })
      let fired = 0
      setTimeout(() => { fired++ }, 5)
      const id = setInterval(() => { fired++; clearInterval(id) }, 5)
      await new Promise((r) => setTimeout(r, 40))
      console.log(m, s)
      delete Array.prototype[0]
      return fired`)
    expect(r.error, r.observation).toBeNull()
    expect(r.value).toBe(2)
    expect(r.logs[0]?.text).toBe('Map(1) { 1 => 2 } Set(1) { 3 }')
  })
})

describe('structuredClone, URL, TextEncoder/Decoder, atob/btoa', () => {
  it('structuredClone keeps cycles, refuses functions, and fails a pathological depth with a catchable error', async () => {
    const r = await run(
      `const a: any = { n: 1 }; a.self = a
      const m = new Map([[a, [a, new Set([a])]]])
      const c = structuredClone({ a, m })
      let fn = ''
      try { structuredClone({ f() {} }) } catch (e) { fn = e.name }
      let deep = ''
      let v: any = {}; for (let i = 0; i < 50000; i++) v = { v }
      try { structuredClone(v) } catch (e) { deep = e.name }
      return [c.a.self === c.a, c.m.get(c.a)[0] === c.a, c.m.get(c.a)[1].has(c.a), c.a !== a, fn, deep]`,
      { timeoutMs: 30000 },
    )
    expect(r.error, r.observation).toBeNull()
    expect(r.value).toEqual([true, true, true, true, 'DataCloneError', 'RangeError'])
  })

  it('giant URL and query inputs cost only their length', async () => {
    const r = await run(
      `const u = new URL('https://example.com/' + 'a/'.repeat(200000) + '?q=' + 'x'.repeat(1000000))
      const host = new URL('https://' + 'h'.repeat(1000000) + '.com').host.length
      const p = new URLSearchParams('a=1&'.repeat(200000))
      const dots = new URL('https://e.com/' + '../'.repeat(100000) + 'x').pathname
      return [u.pathname.length, u.search.length, host, p.size, dots]`,
      { timeoutMs: 20000 },
    )
    expect(r.error, r.observation).toBeNull()
    expect(r.value).toEqual([400001, 1000003, 1000004, 200000, '/x'])
  })

  it('rejects malformed input with the standard errors', async () => {
    const r = await run(`const out = []
      for (const f of [() => new URL('not a url'), () => new URL('https://h:99999'), () => atob('*'), () => btoa('€'), () => new TextDecoder('latin1'), () => new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff]))]) {
        try { f(); out.push('ok') } catch (e) { out.push(e.name) }
      }
      return out`)
    expect(r.value).toEqual(['TypeError', 'TypeError', 'InvalidCharacterError', 'InvalidCharacterError', 'RangeError', 'TypeError'])
  })

  it('round-trips text and base64 of every plane, and big inputs', async () => {
    const r = await run(`const s = 'aé€😀\\u0000' + 'z'.repeat(1 << 20)
      const bytes = new TextEncoder().encode(s)
      const back = new TextDecoder().decode(bytes)
      const b = btoa(String.fromCharCode(...bytes.subarray(0, 12)))
      return [back === s, bytes.length, b, atob(b).length, new TextDecoder().decode(new Uint8Array([0xf0, 0x9f])), bytes instanceof Uint8Array]`)
    expect(r.value).toEqual([true, (1 << 20) + 1 + 2 + 3 + 4 + 1, 'YcOp4oKs8J+YgAB6', 12, '\uFFFD', true])
  })
})

describe('URL, TextEncoder/Decoder, atob/btoa, structuredClone are built on first use', () => {
  it('after the program replaced Symbol and poisoned defineProperty and Array.prototype, they work as ever', async () => {
    const r = await run(`const g: any = globalThis
      g.Symbol = { iterator: 'nope', toStringTag: 'nope' }
      const toString = Object.prototype.toString
      Object.defineProperty = (() => { throw new Error('defineProperty') }) as any
      Array.prototype.push = function () { throw new Error('push') }
      const pairs = [...new URLSearchParams('a=1&b=2')]
      return [pairs, toString.call(new URL('https://e.com/')), toString.call(new URLSearchParams('')),
        new TextDecoder().decode(new TextEncoder().encode('é')), atob(btoa('x')), structuredClone({ a: 1 }).a]`)
    expect(r.error, r.observation).toBeNull()
    expect(r.value).toEqual([
      [
        ['a', '1'],
        ['b', '2'],
      ],
      '[object URL]',
      '[object URLSearchParams]',
      'é',
      'x',
      1,
    ])
  })

  it('once touched they are the plain writable, non-enumerable globals they were; assigned or deleted first, they stay so', async () => {
    const r = await run(`const g: any = globalThis
      const first = URL
      const d = Object.getOwnPropertyDescriptor(globalThis, 'URL')!
      g.TextEncoder = 5
      delete g.atob
      return [typeof first, first === URL, d.writable, d.enumerable, d.configurable, d.value === first,
        g.TextEncoder, typeof g.atob, Object.keys(globalThis).includes('URL'), new URL('https://e.com/a').pathname]`)
    expect(r.error, r.observation).toBeNull()
    expect(r.value).toEqual(['function', true, true, false, true, true, 5, 'undefined', false, '/a'])
  })

  it('what a run does to them is gone in the next run', async () => {
    const rt = await testRuntime({ tools: [], limits: { timeoutMs: 8000 } })
    const first = await rt.runCode(`(URL.prototype as any).leak = 1; (globalThis as any).btoa = () => 'mine'; return 1`)
    expect(first.error, first.observation).toBeNull()
    const next = await rt.runCode(`return ['leak' in URL.prototype, btoa('a')]`)
    expect(next.value).toEqual([false, 'YQ=='])
  })
})
