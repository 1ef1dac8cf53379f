/**
 * No program can abort the isolate's process. Each feature that did (or that posts platform tasks, blocks
 * the isolate's thread, or takes memory outside the limit) is attacked by name, several ways; then a fuzz
 * calls every function a program can reach with hostile receivers and arguments, in a throwaway sandbox,
 * and fails on any call after which the process is gone. After every attack the same process serves the
 * next run. Real isolates in the real child (`npm run build` first).
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIsolateSandbox, type IsolateSandbox } from '../../sandbox/isolate/index.js'
import type { SandboxOutcome, SandboxRunRequest } from '../../sandbox/types.js'
import { RecordingHost, never, request } from '../sandbox/fixtures/isolate-host.js'
import { fuzzProgram } from './builtin-fuzz.js'

let sandbox: IsolateSandbox
beforeAll(async () => {
  sandbox = createIsolateSandbox()
  await sandbox.start()
  await sandbox.run(request('return 1'), new RecordingHost(), never())
})
afterAll(() => sandbox.close())

const died = (outcome: SandboxOutcome) =>
  !outcome.ok && /sandbox process died|sandbox_unavailable/.test(`${outcome.error.message} ${outcome.error.kind}`)

/** Run, then prove the process that ran it still serves: same pid, a clean next run, no death reported. */
async function survives(body: string, limits = {}): Promise<SandboxOutcome> {
  const pid = sandbox.pidOf()
  expect(pid).toBeDefined()
  const outcome = await sandbox.run(request(body, limits), new RecordingHost(), never())
  expect(died(outcome), JSON.stringify(outcome)).toBe(false)
  // A delayed platform task fires after the run settled: give it the time it asked for, then look.
  await new Promise((r) => setTimeout(r, 50))
  const next = await sandbox.run(request('return 41 + 1'), new RecordingHost(), never())
  expect(next, 'the next run').toMatchObject({ ok: true, valueJson: '42' })
  expect(sandbox.pidOf(), 'the same process serves').toBe(pid)
  return outcome
}

const value = (outcome: SandboxOutcome): unknown =>
  outcome.ok && outcome.valueJson !== undefined ? JSON.parse(outcome.valueJson) : outcome

describe('the builtins that aborted, blocked or escaped the limit are gone before any program code runs', () => {
  it.each([
    ['directly, with a timeout', 'Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(16)), 0, 0, 10)'],
    ['through a saved reference', 'const w = Atomics["wait" + "Async"]; w(new Int32Array(16), 0, 0, 1)'],
    ['through Reflect', 'Reflect.apply(Reflect.get(Atomics, "waitAsync"), Atomics, [new Int32Array(4), 0, 0, 5])'],
    [
      'found by walking Atomics',
      'for (const k of Reflect.ownKeys(Atomics)) { const f = Atomics[k]; if (typeof f === "function" && /wait/i.test(String(k))) f(new Int32Array(4), 0, 0, 1) }',
    ],
    ['with a zero timeout, in a loop', 'for (let i = 0; i < 100; i++) Atomics.waitAsync(new Int32Array(4), 0, 0, 0)'],
  ])('Atomics.waitAsync %s: no such function, the process lives', async (_, attack) => {
    const outcome = await survives(`try { ${attack} } catch (e) { return String(e) }; return 'ran'`)
    // Gone: calling it throws, and a walk of Atomics finds nothing to call.
    expect(value(outcome)).toMatch(/is not (a function|defined)|called on undefined|^ran$/)
  })

  it('Atomics.wait has nothing to block on: no SharedArrayBuffer by any route', async () => {
    const outcome = await survives(`return [
      typeof SharedArrayBuffer, typeof Atomics.wait, typeof Atomics.waitAsync, typeof globalThis['Shared' + 'ArrayBuffer'],
      Object.getOwnPropertyNames(globalThis).filter((n) => /shared|wasm|webassembly/i.test(n)),
      typeof Atomics.add, Atomics.add(new Int32Array(2), 0, 5),
    ]`)
    expect(value(outcome)).toEqual(['undefined', 'undefined', 'undefined', 'undefined', [], 'function', 0])
  })

  it('FinalizationRegistry and WeakRef are gone (finalizers run as platform tasks outside any run)', async () => {
    const outcome = await survives(
      `return [typeof FinalizationRegistry, typeof WeakRef, typeof globalThis.FinalizationRegistry, typeof WeakMap]`,
    )
    expect(value(outcome)).toEqual(['undefined', 'undefined', 'undefined', 'function'])
  })

  it('resizable and growable buffers do not exist: 4 × 256 MB "reserved" under a 64 MB limit stays inside the limit', async () => {
    const outcome = await survives(
      `const kept = []
       for (let i = 0; i < 4; i++) {
         const b = new ArrayBuffer(0, { maxByteLength: 256 * 1024 * 1024 })
         if (typeof b.resize === 'function') b.resize(256 * 1024 * 1024)
         new Uint8Array(b).fill(1)
         kept.push(b)
       }
       return [kept.map((b) => b.byteLength), kept[0].resizable, typeof ArrayBuffer.prototype.resize]`,
      { memoryMb: 64 },
    )
    expect(value(outcome)).toEqual([[0, 0, 0, 0], null, 'undefined'])
    expect(childRssMb(sandbox.pidOf()!)).toBeLessThan(400)
  })

  it('a plain ArrayBuffer over the limit is refused as a typed memory error, not an abort', async () => {
    const outcome = await survives(
      `const kept = []; for (let i = 0; i < 8; i++) kept.push(new ArrayBuffer(64 * 1024 * 1024)); return kept.length`,
      { memoryMb: 64 },
    )
    expect(outcome).toMatchObject({ ok: false })
    expect(!outcome.ok && outcome.error.message).toMatch(/memory|allocation failed/i)
  })

  it('none of it exists even for code that runs when the program script is evaluated (a breakout of the wrapper)', async () => {
    // The sandbox evaluates `js` as a script; anything outside the function runs at that moment.
    const js = `globalThis.__seen = [typeof WebAssembly, typeof SharedArrayBuffer, typeof Atomics.waitAsync, typeof FinalizationRegistry];
      (async function (tools, ToolCallError, console) { return globalThis.__seen })`
    const req: SandboxRunRequest = { ...request(''), js }
    const outcome = await sandbox.run(req, new RecordingHost(), never())
    expect(value(outcome)).toEqual(['undefined', 'undefined', 'undefined', 'undefined'])
  })

  it('a child process started without the engine flags refuses to run programs (fails closed)', async () => {
    const { spawnSync } = await import('node:child_process')
    const entry = new URL('../../dist/sandbox/isolate/child.js', import.meta.url).pathname
    const result = spawnSync(process.execPath, ['--no-node-snapshot', entry, '{}'], {
      encoding: 'utf8',
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 20_000,
    })
    expect(result.status).toBe(78)
    expect(result.stderr).toMatch(/started without the V8 flags/)
  })
})

describe('stack-trace hooks, recursion, proxies, Intl and huge strings end typed, in the same process', () => {
  it('an Error.prepareStackTrace that never returns is stopped by the deadline', async () => {
    const outcome = await survives(`Error.prepareStackTrace = () => { for (;;) {} }; throw new Error('x')`, { timeoutMs: 1000 })
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'timeout' } })
  })

  it('an Error.prepareStackTrace that returns a non-string, throws, or recurses: a runtime error', async () => {
    for (const hook of [
      '() => ({ not: "a string" })',
      '() => { throw new Error("hook") }',
      '(e) => e.stack',
      '(e, s) => s.map((c) => String(c.getThis()) + String(c.getFunction()))',
    ]) {
      const outcome = await survives(`Error.prepareStackTrace = ${hook}; null.boom`)
      expect(outcome.ok, hook).toBe(false)
    }
  })

  it('call sites expose no function or receiver of the glue or the prelude', async () => {
    const outcome = await survives(`
      Error.prepareStackTrace = (_, sites) => sites.map((s) => [s.getFileName(), typeof s.getThis(), typeof s.getFunction()])
      const frames = (() => new Error().stack)()
      Error.prepareStackTrace = undefined
      return frames.filter(([file]) => file !== 'program.js')`)
    const frames = value(outcome) as [string, string, string][]
    for (const [, self, fn] of frames) expect([self, fn]).toEqual(['undefined', 'undefined'])
  })

  it('Error.captureStackTrace on hostile targets', async () => {
    await survives(`
      for (const t of [{}, Object.freeze({}), new Proxy({}, { defineProperty() { throw 1 } }), function () {}, []]) {
        try { Error.captureStackTrace(t, Error.captureStackTrace) } catch {}
      }
      Error.stackTraceLimit = Infinity
      const deep = (n) => (n ? deep(n - 1) : new Error('deep').stack.length)
      return deep(5000)`)
  })

  it.each([
    ['unbounded recursion', 'const f = () => f(); f()'],
    ['recursion through a getter', 'const o = { get x() { return this.x } }; o.x'],
    ['recursion through a Proxy trap', 'const p = new Proxy({}, { get: (t, k, r) => r[k] }); p.x'],
    ['a Proxy chain 1e6 deep', 'let p = {}; for (let i = 0; i < 1e6; i++) p = new Proxy(p, {}); return Object.keys(p)'],
    [
      'a revoked Proxy in the chain',
      'const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); let p = proxy; for (let i = 0; i < 1e4; i++) p = new Proxy(p, {}); return p.x',
    ],
    ['recursion in toString during JSON.stringify', 'const o = { toJSON() { return [o, o] } }; return JSON.stringify(o)'],
    ['nested arrays 1e6 deep', 'let a = []; for (let i = 0; i < 1e6; i++) a = [a]; return String(a).length'],
  ])('%s: a typed error or a value', async (_, body) => {
    await survives(body, { timeoutMs: 5000 })
  })

  it.each([
    ['normalize of 8M combining marks', "return 'a\\u0301'.repeat(4e6).normalize('NFD').length"],
    ['localeCompare of two 4M strings', "return 'é'.repeat(4e6).localeCompare('e'.repeat(4e6), 'fr', { sensitivity: 'base' })"],
    ['toLocaleUpperCase of 8M chars', "return 'ß'.repeat(8e6).toLocaleUpperCase('de').length"],
    ['a catastrophic RegExp on a long input', "return /(a|aa)+$/.test('a'.repeat(5000) + 'b')"],
    ['a RegExp with huge quantifiers', "return /(?:a{0,65535}){0,65535}b/.test('a'.repeat(1e5))"],
    [
      'Intl.Segmenter over 4M chars',
      "let n = 0; for (const _ of new Intl.Segmenter('th', { granularity: 'word' }).segment('กขค'.repeat(1.3e6))) n++; return n",
    ],
    [
      'Intl with odd locales and time zones',
      `const out = []
      for (const loc of ['x'.repeat(1e5), 'en-u-ca-' + 'a'.repeat(200), 'und-' + 'x-'.repeat(5000) + 'a', 'de-DE-u-co-phonebk-ka-shifted']) {
        for (const C of [Intl.DateTimeFormat, Intl.NumberFormat, Intl.Collator, Intl.PluralRules, Intl.ListFormat, Intl.RelativeTimeFormat, Intl.DisplayNames, Intl.Locale]) {
          try { out.push(String(new C(loc, { timeZone: 'Etc/GMT+' + 'x'.repeat(1e4), type: 'region' }))) } catch (e) { out.push(e.name) }
        }
      }
      for (const k of ['calendar', 'collation', 'currency', 'numberingSystem', 'timeZone', 'unit']) out.push(Intl.supportedValuesOf(k).length)
      return out.length`,
    ],
    [
      'Date and number formatting at the edges',
      "return [new Date(8.64e15).toLocaleString('ja-JP-u-ca-japanese'), (1e308).toLocaleString('ar-EG'), (2n ** 4000n).toLocaleString('en').length, new Intl.NumberFormat('en', { maximumFractionDigits: 100 }).format(Number.MIN_VALUE).length]",
    ],
  ])('%s: finishes, fails typed, or times out', async (_, body) => {
    await survives(body, { timeoutMs: 4000 })
  })
})

describe('fuzz: every reachable builtin, hostile receivers and arguments, nothing kills the process', () => {
  it('calls every function a program can reach; none ends the process', async () => {
    const own = createIsolateSandbox()
    try {
      const host = new RecordingHost()
      const listed = await own.run(request(fuzzProgram(0, 0, true), { timeoutMs: 20_000 }), host, never())
      const { total, paths } = value(listed) as { total: number; paths: string[] }
      // Every global constructor and namespace contributes; a walk that found little proves nothing.
      expect(total).toBeGreaterThan(500)
      expect(paths).toContain('globalThis.Intl.Segmenter')
      expect(paths).toContain('globalThis.Atomics.notify')

      const killers: string[] = []
      const tolerated: string[] = []
      let called = 0
      // A run that did not finish is split until one function is left: a slow or greedy builtin only
      // costs time or hits the limits; one after which the process is gone is a finding.
      const sweep = async (from: number, to: number): Promise<void> => {
        const pid = own.pidOf()
        const outcome = await own.run(request(fuzzProgram(from, to), { timeoutMs: 5000, memoryMb: 128 }), host, never())
        await new Promise((r) => setTimeout(r, 20))
        const probe = await own.run(request('return 1'), host, never())
        const gone = died(outcome) || died(probe) || (pid !== undefined && own.pidOf() !== pid)
        if (outcome.ok && !gone) {
          called += (value(outcome) as { called: number }).called
          return
        }
        if (to - from === 1) {
          ;(gone ? killers : tolerated).push(`${paths[from]} (${outcome.ok ? 'ok' : outcome.error.kind})`)
          return
        }
        const mid = (from + to) >> 1
        await sweep(from, mid)
        await sweep(mid, to)
      }
      for (let from = 0; from < total; from += 50) await sweep(from, Math.min(total, from + 50))
      expect(killers).toEqual([])
      // Nearly everything was called to the end; what was not only timed out or ran out of memory.
      expect(called + tolerated.length).toBe(total)
      expect(tolerated.length).toBeLessThan(total / 20)
    } finally {
      await own.close()
    }
  }, 600_000)
})

function childRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
  return kb / 1024
}
