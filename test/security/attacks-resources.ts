/**
 * Exhaustion: loops, storms, bombs and floods. Each must end as a typed RunError (or an inert value) within
 * the run's limits, in the sandbox process, never in the host.
 */
import type { RunResult } from '../../vocabulary/types.js'
import type { Attack } from './attack.js'

const QUICK = { timeoutMs: 1500 }
const SMALL_HEAP = { memoryMb: 64, timeoutMs: 10_000 }
const NODE_LINE = Number(process.versions.node.split('.')[0])

/** `(module (func (export "f") (loop (br 0))))`, assembled by hand. */
const WASM_LOOP = [0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0, 10, 9, 1, 7, 0, 3, 64, 12, 0, 11, 11]

const logBytes = (r: RunResult) => r.logs.reduce((n, l) => n + Buffer.byteLength(l.text) + 1, 0)

export const resourceAttacks: Attack[] = [
  {
    name: 'synchronous infinite loop',
    cite: 'notes B3 #13; isolated-vm #266 (a loop that ignored the timeout)',
    code: `for (;;) {}`,
    limits: QUICK,
    expect: { error: 'timeout' },
  },
  {
    name: 'asynchronous infinite loop on resolved promises',
    cite: 'isolated-vm #318 / #475 / #185: the timeout option does not cover promises',
    code: `for (;;) { await null }`,
    limits: QUICK,
    expect: { error: 'timeout' },
  },
  {
    name: 'microtask storm',
    cite: 'notes B3 #14; isolated-vm tests/microtask-timeout.js',
    code: `(function spin() { Promise.resolve().then(spin) })(); return 'spawned'`,
    limits: QUICK,
    // In a container too: the runner reports a value one turn after the program's microtasks (so a
    // rejection left unhandled is seen first), and the storm never yields that turn.
    expect: { error: 'timeout' },
  },
  {
    name: 'a promise that never settles',
    cite: 'notes B3 #15; isolated-vm #518 ("timeout cannot apply" to a returned promise)',
    code: `await new Promise(() => {})`,
    limits: QUICK,
    expect: { error: 'timeout' },
  },
  {
    name: 'while (true) await a tool',
    cite: 'notes B3 #16: the tool-call cap ends an async busy loop',
    code: `while (true) await tools.echo({})`,
    limits: { maxToolCalls: 200 },
    expect: { error: 'runtime', code: 'EDQUOT' },
  },
  {
    name: 'while (true) await a slow tool',
    cite: 'notes B3 #16: the wall-clock deadline with a call still pending (waits on calls are not program time)',
    code: `while (true) await tools.slow({ ms: 1000 })`,
    limits: { ...QUICK, deadlineMs: 2500 }, // mid-call, not on a call boundary
    expect: { error: 'timeout', message: /deadline.*still waiting on: slow/ },
  },
  {
    name: 'a Promise.all flood of 100,000 tool calls',
    cite: 'notes B3 #24 (Cloudflare caps subrequests); the tool-call cap',
    code: `await Promise.all(Array.from({ length: 100_000 }, (_, i) => tools.echo({ i }))); return 'all done'`,
    // The default cap is sized for batch work (100,000 calls); the attack runs against a tighter one. The
    // memory is the cap's headroom: 100,000 pending promises outgrow 128 MB under gVisor's accounting.
    limits: { timeoutMs: 30_000, maxToolCalls: 1_000, memoryMb: 512 },
    expect: { error: 'runtime', code: 'EDQUOT' },
  },
  {
    name: 'Array(1e9).fill',
    cite: 'isolated-vm #186 / #137: Array(n).fill ignored the memory limit',
    code: `return Array(1e9).fill(0).length`,
    limits: SMALL_HEAP,
    expect: { error: 'memory' },
    // From V8 12 (Node 22) such an array is a dictionary filled one element at a time: on a loaded machine
    // the program time can run out before the memory does. fill-bomb.test.ts holds the memory bound.
    ...(NODE_LINE >= 22 ? { orElse: { error: 'timeout' as const } } : {}),
  },
  {
    name: 'spreading a huge string into an array',
    cite: 'isolated-vm #107: [...".".repeat(1e9)] crashed Node',
    code: `return [...'.'.repeat(2 ** 28)].length`,
    limits: SMALL_HEAP,
    expect: { error: 'memory' },
  },
  {
    name: 'typed-array copy bomb',
    cite: 'isolated-vm #527 (open): a 100 MB ArrayBuffer copied into a JS Array aborts the process',
    code: `const bytes = new Uint8Array(48 * 1024 * 1024).fill(1); return Array.from(bytes).length`,
    limits: SMALL_HEAP,
    expect: { error: 'memory' },
  },
  {
    name: 'ArrayBuffers past the heap limit',
    cite: 'CVE-2026-44004 (vm2 Buffer.alloc host OOM); isolated-vm counts externally allocated memory',
    code: `const keep = []; for (;;) keep.push(new Uint8Array(8 * 1024 * 1024).fill(1))`,
    limits: SMALL_HEAP,
    expect: { error: 'memory' },
  },
  {
    name: 'growing heap of arrays',
    cite: 'notes B3 #17; isolated-vm #457 / #460 (limit not applied)',
    code: `const keep = []; for (;;) keep.push(new Array(1e6).fill(1.5))`,
    limits: SMALL_HEAP,
    expect: { error: 'memory' },
  },
  {
    name: 'string doubling',
    cite: 'notes B3 #19: `for (;;) s += s` ends at the engine string limit',
    code: `let s = 'x'; for (;;) s += s`,
    limits: SMALL_HEAP,
    expect: { error: 'runtime', message: /RangeError: Invalid string length/ },
  },
  {
    name: 'deep recursion, and the constructor chain of the RangeError',
    cite: 'CVE-2019-10761: a stack overflow created its RangeError in the host realm',
    code: `
      const f = () => f() + 1
      try { f() } catch (e) { return [e instanceof RangeError, e.constructor.constructor('return typeof process')()] }
      return 'no overflow'`,
    expect: { value: [true, 'undefined'] },
    docker: { value: [true, 'object'] },
  },
  {
    name: 'uncaught deep recursion',
    cite: 'CVE-2019-10761; notes B3 #20',
    code: `function f(n) { return f(n + 1) + 1 } return f(0)`,
    expect: { error: 'runtime', message: /Maximum call stack/ },
  },
  {
    name: 'a deeply nested return value',
    cite: 'notes B3 #20: a 1e5-deep result must not overflow a serializer',
    code: `let v = []; for (let i = 0; i < 100_000; i++) v = [v]; return v`,
    // Best effort, never nothing: the first 200 levels are returned, the rest marked, and a note says so.
    expect: { value: JSON.parse('['.repeat(201) + '"[Deep]"' + ']'.repeat(201)) },
    check: (r) => {
      if (!r.ok || !/nesting deeper than 200/.test(r.observation)) throw new Error(`expected a note, got: ${r.observation}`)
    },
  },
  {
    name: 'a deeply nested tool argument, and a deeply nested tool result',
    cite: 'notes B3 #20: neither side of the bridge overflows on depth',
    code: `
      let v = []; for (let i = 0; i < 100_000; i++) v = [v]
      const out = []
      try { await tools.echo({ v }); out.push('sent') } catch (e) { out.push(e.code) }
      try { const r = await tools.nasty({ kind: 'deep' }); out.push(typeof r) } catch (e) { out.push(e.code) }
      return out`,
    expect: { value: ['EINVAL', 'EIO'] },
    // On every line: V8 14 (Node 26) would print and parse it, so the host refuses it by its depth.
    toolSaw: [],
  },
  {
    name: 'a large tool result (8 MiB)',
    cite: 'notes B3 #17: JSON text of any size crosses as text',
    code: `const r = await tools.nasty({ kind: 'big' }); return r.length`,
    expect: { value: 8 * 1024 * 1024 },
  },
  {
    name: 'source-size bomb',
    cite: 'notes B3 #21: the source is capped before it is compiled',
    code: `// ${'x'.repeat(600 * 1024)}\nreturn 1`,
    expect: { error: 'compile', message: /source limit/ },
  },
  {
    name: 'parser bomb through eval',
    cite: 'isolated-vm tests/parser-overflow.js',
    code: `
      const out = []
      for (const src of ['('.repeat(1e6), '['.repeat(1e6) + ']'.repeat(1e6), '1+'.repeat(2e6) + '1']) {
        try { eval(src); out.push('parsed') } catch (e) { out.push(e.name) }
      }
      return out`,
    limits: { timeoutMs: 10_000 },
    expect: { value: ['RangeError', 'RangeError', 'parsed'] },
  },
  {
    name: 'deeply nested source text',
    cite: 'notes B3 #21: deep nesting in the program itself (compiler stack)',
    code: `return ${'('.repeat(200_000)}1${')'.repeat(200_000)}`,
    // esbuild folds the redundant parentheses; nothing deep reaches the sandbox.
    expect: { value: 1 },
  },
  {
    name: 'catastrophic regular expression',
    cite: 'notes B3 #22; isolated-vm tests/large-strings.js (timeouts interrupt regex)',
    code: `return /(a+)+$/.test('a'.repeat(64) + '!')`,
    limits: QUICK,
    expect: { error: 'timeout' },
  },
  {
    name: 'console flood without end',
    cite: 'notes B3 #23: the console byte cap',
    code: `for (;;) console.log('x'.repeat(1e6))`,
    limits: { ...QUICK, maxOutputBytes: 64 * 1024 },
    expect: { error: 'timeout' },
    check: (r) => {
      if (logBytes(r) > 64 * 1024 + 200) throw new Error(`kept ${logBytes(r)} bytes of output over a 64 KiB cap`)
    },
  },
  {
    name: 'console flood that ends',
    cite: 'notes B3 #23: output past the cap is cut with a marker, the run still succeeds',
    code: `for (let i = 0; i < 20_000; i++) console.log('y'.repeat(1000)); return 'done'`,
    limits: { maxOutputBytes: 256 * 1024 },
    expect: { value: 'done' },
    check: (r) => {
      if (logBytes(r) > 256 * 1024 + 200) throw new Error(`kept ${logBytes(r)} bytes of output over a 256 KiB cap`)
      if (!r.logs.some((l) => /output cut/.test(l.text))) throw new Error('no cut marker')
    },
  },
  {
    name: 'Atomics.wait on a SharedArrayBuffer',
    cite: 'notes B3 #26: a blocking wait must still be interrupted',
    code: `return Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)`,
    limits: QUICK,
    // The isolate has no shared memory at all (lockdown.ts); a container's Node blocks until the deadline.
    expect: { error: 'runtime', message: /SharedArrayBuffer is not defined/ },
    docker: { error: 'timeout' },
  },
  {
    name: 'WebAssembly memory grown to its maximum',
    cite: 'notes B3 #27: wasm memory must be accounted against the limit',
    code: `
      if (typeof WebAssembly === 'undefined') return 'no WebAssembly'
      const mem = new WebAssembly.Memory({ initial: 1, maximum: 65536 })
      for (let i = 0; i < 4000; i++) { mem.grow(16); new Uint8Array(mem.buffer).fill(1, (mem.buffer.byteLength - 16 * 65536)); }
      return mem.buffer.byteLength`,
    limits: SMALL_HEAP,
    // Either wasm memory counts against the limit, or WebAssembly is not offered at all.
    expect: { error: 'memory' },
    orElse: { value: 'no WebAssembly' },
  },
  {
    name: 'a tight WebAssembly loop',
    cite: 'notes B3 #27: wasm code is interrupted like JS',
    code: `
      if (typeof WebAssembly === 'undefined') for (;;) {}
      const { instance } = await WebAssembly.instantiate(new Uint8Array(${JSON.stringify(WASM_LOOP)}))
      instance.exports.f()`,
    limits: QUICK,
    expect: { error: 'timeout' },
  },
]
