/**
 * asm.js in the isolate child (lockdown.ts's `--no-validate-asm`): V8 never validates a "use asm" module,
 * so it is never compiled to WebAssembly code and no context is built with the WebAssembly API inside it;
 * the module runs as the plain JavaScript it is, with the same results, and WebAssembly stays out of reach.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIsolateSandbox, type IsolateSandbox } from '../../sandbox/isolate/index.js'
import { RecordingHost, isolateChildPids, never, request } from './fixtures/isolate-host.js'

let sandbox: IsolateSandbox
beforeAll(async () => {
  sandbox = createIsolateSandbox()
  await sandbox.start()
})
afterAll(() => sandbox.close())

const ASM_MODULE = `
function Module(stdlib, foreign, heap) {
  "use asm";
  var i32 = new stdlib.Int32Array(heap);
  function sum(n) {
    n = n | 0;
    var i = 0, s = 0;
    for (i = 0; (i | 0) < (n | 0); i = (i + 1) | 0) { i32[i << 2 >> 2] = i; s = (s + (i32[i << 2 >> 2] | 0)) | 0; }
    return s | 0;
  }
  return { sum: sum };
}
const m = Module(globalThis, {}, new ArrayBuffer(0x10000));
`

describe('isolate sandbox: asm.js', () => {
  it('the child starts with asm.js validation off, beside the other lockdown flags', async () => {
    expect(await sandbox.run(request('return 1'), new RecordingHost(), never())).toMatchObject({ ok: true })
    const pids = isolateChildPids()
    expect(pids.length).toBeGreaterThan(0)
    for (const pid of pids) {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
      expect(args).toEqual(expect.arrayContaining(['--no-validate-asm', '--no-expose-wasm']))
    }
  })

  it('a "use asm" module still runs, as plain JavaScript, with the same results', async () => {
    const outcome = await sandbox.run(request(`${ASM_MODULE}\nreturn [m.sum(10), m.sum(1000)]`), new RecordingHost(), never())
    expect(outcome).toMatchObject({ ok: true, valueJson: '[45,499500]' })
  })

  it('and gives no way to WebAssembly', async () => {
    const body = `${ASM_MODULE}\nreturn [typeof WebAssembly, typeof globalThis.WebAssembly, Object.getOwnPropertyNames(globalThis).includes('WebAssembly')]`
    const outcome = await sandbox.run(request(body), new RecordingHost(), never())
    expect(outcome).toMatchObject({ ok: true, valueJson: '["undefined","undefined",false]' })
  })
})
