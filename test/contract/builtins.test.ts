/**
 * The built-ins a program has follow the Node line the sandbox runs on, and the checker declares exactly
 * those: for each probe, a checked program may use it if and only if the sandbox really has it (read with
 * the check off). Runs on every line CI tests (scripts/test-line.sh); the table below says what each line
 * has, so a line whose V8 gains or loses one fails here until sdk/builtins.ts says so.
 *
 * Not probed: `ArrayBuffer.prototype.transfer` (Node 22 on) exists but stays undeclared, since its lib
 * (es2024.arraybuffer) also declares the resizing the lockdown removes; and ES2017/ES2021's
 * `SharedArrayBuffer`, `Atomics.wait`, `WeakRef` and `FinalizationRegistry`, declared by ES2023's lib on
 * every line and removed by the lockdown (test/security/builtin-sweep.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'

const line = Number(process.versions.node.split('.')[0])

/** Each probe and the first Node line whose sandbox has it (Infinity: no line, the lockdown removes it). */
const PROBES: [expr: string, since: number][] = [
  ['Object.groupBy', 22],
  ['Map.groupBy', 22],
  ['Promise.withResolvers', 22],
  ["''.isWellFormed", 20],
  ['Array.fromAsync', 22],
  ['new Set<number>().union', 22],
  ['Iterator.from', 22],
  ['Float16Array', 24],
  ['Promise.try', 24],
  ['RegExp.escape', 24],
  ['Error.isError', 24],
  ['DisposableStack', 24],
  ['Atomics.pause', 24],
  ['Uint8Array.fromBase64', 26],
  ['new Map<string, number>().getOrInsert', 26],
  ['Temporal', 26],
  ['new Date().toTemporalInstant', 26],
  ['new ArrayBuffer(8).resize', Infinity],
  ['Atomics.waitAsync', Infinity],
]

let checked: Runtime
let unchecked: Runtime
beforeAll(async () => {
  checked = await createRuntime({ typecheck: 'error' })
  unchecked = await createRuntime({ typecheck: 'off' })
})
afterAll(async () => {
  await checked?.close()
  await unchecked?.close()
})

describe(`on Node ${line}, the checker declares what the sandbox has`, () => {
  it.each(PROBES)('%s', async (expr, since) => {
    // Read unchecked, guarded: a global the line lacks (`Iterator` on Node 20) would throw, not say undefined.
    const global = /^(?:new )?([A-Za-z0-9]+)/.exec(expr)?.[1] ?? 'String'
    const real = await unchecked.runCode(`return typeof globalThis.${global} === 'undefined' ? 'undefined' : typeof (${expr})`)
    expect(real.ok, real.observation).toBe(true)
    const present = real.value !== 'undefined'
    expect(present, `present on Node ${line}`).toBe(line >= since)

    // Declared: the check says nothing of it. A missing one is reported (a missing global stops the run).
    const declared = await checked.runCode(`return typeof (${expr})`)
    const missing = /does not exist on type|Cannot find name|only refers to a type/
    if (present) {
      expect(declared.observation).not.toMatch(missing)
      expect(declared.value, declared.observation).toBe(real.value)
    } else expect(declared.observation).toMatch(missing)
  })
})
