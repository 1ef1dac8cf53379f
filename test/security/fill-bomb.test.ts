/**
 * `new Array(1e9).fill(1)` under a 64 MB limit stays near the limit on every line. From V8 13 (Node 24) the
 * engine fills a dictionary-mode array in one runtime call that neither the memory limit nor the timeout
 * interrupts: isolated-vm's near-limit callback keeps raising the heap limit while it waits to terminate,
 * and the child grew past a gigabyte before V8 aborted it. The lockdown fills long arrays in JavaScript, one
 * element at a time, which both interrupt. The child's resident memory is sampled while the run is in
 * flight; the program time is long enough that only the memory limit can stop the run.
 */
import { readFileSync } from 'node:fs'
import { afterEach, expect, it } from 'vitest'
import { createIsolateSandbox, type IsolateSandbox } from '../../sandbox/isolate/index.js'
import { RecordingHost, never, request } from '../sandbox/fixtures/isolate-host.js'

let sandbox: IsolateSandbox | undefined
afterEach(() => sandbox?.close())

function rssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
  } catch {
    return 0 // the child is gone (V8 may abort an isolate it could not unwind)
  }
}

it.each([
  ['a holey array', 'new Array(1e9).fill(1)'],
  ['an array-like, through call', 'Array.prototype.fill.call({ length: 1e9 }, 1)'],
  ['a range of a long array', 'new Array(2 ** 31).fill(1, 2 ** 30)'],
])(
  'fill of %s under a 64 MB limit: a memory error, the child never past 400 MB',
  async (_, bomb) => {
    sandbox = createIsolateSandbox()
    await sandbox.start()
    await sandbox.run(request('return 1'), new RecordingHost(), never())
    const pid = sandbox.pidOf()!
    let peak = 0
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20)
    const outcome = await sandbox.run(
      request(`${bomb}; return 'filled'`, { memoryMb: 64, timeoutMs: 120_000 }),
      new RecordingHost(),
      never(),
    )
    clearInterval(sampler)
    expect(outcome.ok, JSON.stringify(outcome)).toBe(false)
    expect(!outcome.ok && outcome.error.kind).toBe('memory')
    expect(peak).toBeLessThan(400)
    const next = await sandbox.run(request('return [1, 2, 3].fill(0, 1)'), new RecordingHost(), never())
    expect(next).toMatchObject({ ok: true, valueJson: '[1,0,0]' })
  },
  180_000,
)
