/**
 * asm.js and WebAssembly from the attacker's side, with the isolate child's `--no-validate-asm` (lockdown.ts):
 * V8 no longer builds the WebAssembly API into a context to validate "use asm" modules. A program must find no
 * way to WebAssembly or to wasm-compiled code — not through the global, an asm.js module's exports, their
 * prototypes and constructors, a second realm it makes, or eval'd asm.js — and an asm.js module, being plain
 * JavaScript, stays under the run's memory and time limits like any other code (its heap is an ordinary
 * ArrayBuffer, counted; its loops are interrupted by the timeout).
 * (The flag itself and the plain-JS results are in test/sandbox/isolate-asm.test.ts.)
 *
 * What breaks them: `--expose-wasm` or a lockdown without its WebAssembly delete, an asm.js module compiled
 * to wasm whose exports expose a wasm function or instance, ArrayBuffers outside the isolate's limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIsolateSandbox, type IsolateSandbox } from '../../sandbox/isolate/index.js'
import { RecordingHost, never, request } from '../sandbox/fixtures/isolate-host.js'

let sandbox: IsolateSandbox
beforeAll(async () => {
  sandbox = createIsolateSandbox()
  await sandbox.start()
})
afterAll(() => sandbox.close())

const ASM = `
function Module(stdlib, foreign, heap) {
  "use asm";
  var i32 = new stdlib.Int32Array(heap);
  var imul = stdlib.Math.imul;
  function spin(n) {
    n = n | 0;
    var i = 0, s = 0;
    while (1) { s = (imul(s, 31) + (i32[(i & 1023) << 2 >> 2] | 0)) | 0; i = (i + 1) | 0; if ((n | 0) != 0) if ((i | 0) >= (n | 0)) break; }
    return s | 0;
  }
  function store(i, v) { i = i | 0; v = v | 0; i32[i >> 2] = v; return i32[i >> 2] | 0; }
  return { spin: spin, store: store };
}
`

describe('asm.js gives no way to WebAssembly', () => {
  it("through the module's exports, their prototypes, constructors and source, or eval'd asm.js", async () => {
    const body = `${ASM}
      const m = Module(globalThis, {}, new ArrayBuffer(0x10000))
      const viaEval = (0, eval)('(' + Module.toString() + ')')(globalThis, {}, new ArrayBuffer(0x10000))
      const seen = new Set()
      for (const f of [m.spin, m.store, viaEval.spin, Module]) {
        for (let p = f; p; p = Object.getPrototypeOf(p)) {
          for (const name of Object.getOwnPropertyNames(p)) if (/wasm|webassembly|instance|memory|exports/i.test(name)) seen.add(name)
        }
        seen.add(Object.getPrototypeOf(f) === Function.prototype ? 'plain' : 'odd prototype')
        seen.add(f.constructor === Function ? 'Function' : 'odd constructor')
        // A wasm-compiled function prints as native code; a plain one shows its source.
        seen.add(String(f).includes('[native code]') ? 'native' : 'source')
      }
      return [...seen].sort().concat([typeof WebAssembly, String(Object.getOwnPropertyNames(globalThis).filter((n) => /wasm/i.test(n)))])`
    const outcome = await sandbox.run(request(body), new RecordingHost(), never())
    expect(outcome).toMatchObject({ ok: true })
    expect(JSON.parse((outcome as { valueJson: string }).valueJson)).toEqual(['Function', 'plain', 'source', 'undefined', ''])
  })

  it('through a second realm: a Function from another constructor chain, an iframe-like context, a bound global', async () => {
    const body = `
      const probes = [
        () => Function('return typeof WebAssembly')(),
        () => (0, eval)('typeof WebAssembly'),
        () => new (Object.getPrototypeOf(async function () {}).constructor)('return typeof WebAssembly')(),
        () => typeof Reflect.get(globalThis, 'WebAssembly'),
        () => typeof Object.getOwnPropertyDescriptor(globalThis, 'WebAssembly'),
        () => typeof (function () { return this })()?.WebAssembly,
      ]
      const out = []
      for (const p of probes) { try { const v = await p(); out.push(String(v)) } catch (e) { out.push('threw ' + e.name) } }
      return out`
    const outcome = await sandbox.run(request(body), new RecordingHost(), never())
    expect(outcome).toMatchObject({ ok: true })
    expect(JSON.parse((outcome as { valueJson: string }).valueJson)).toEqual([
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
    ])
  })
})

describe('an asm.js module stays under the run limits', () => {
  it('its endless loop ends at the run timeout, and the sandbox runs the next program', async () => {
    const outcome = await sandbox.run(
      request(`${ASM}\nconst m = Module(globalThis, {}, new ArrayBuffer(0x10000))\nreturn m.spin(0)`, { timeoutMs: 300 }),
      new RecordingHost(),
      never(),
    )
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'timeout' } })
    const next = await sandbox.run(request('return 1'), new RecordingHost(), never())
    expect(next).toMatchObject({ ok: true, valueJson: '1' })
  }, 30_000)

  it('heaps past the memory limit fail the run as memory (or a RangeError the program sees), never the child', async () => {
    const body = `${ASM}
      const heaps = []
      for (let i = 0; i < 64; i++) {
        const m = Module(globalThis, {}, new ArrayBuffer(16 << 20))
        for (let j = 0; j < (16 << 20); j += 4096) m.store(j, i + 1)
        heaps.push(m)
      }
      return heaps.length`
    const outcome = await sandbox.run(request(body, { memoryMb: 64 }), new RecordingHost(), never())
    // 1 GB of asm.js heaps under a 64 MB limit: never allowed to finish.
    expect(outcome.ok, JSON.stringify(outcome)).toBe(false)
    if (!outcome.ok) expect(['memory', 'runtime']).toContain(outcome.error.kind)
    if (!outcome.ok && outcome.error.kind === 'runtime') expect(outcome.error.message).toMatch(/RangeError|allocat/i)
    const next = await sandbox.run(request('return 2'), new RecordingHost(), never())
    expect(next).toMatchObject({ ok: true, valueJson: '2' })
  }, 60_000)
})
