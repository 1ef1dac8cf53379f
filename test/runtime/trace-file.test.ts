/**
 * `codeact run --trace FILE` (runtime/trace-file.ts): a run as a Chrome trace-event file. A real run with
 * three parallel calls, a barrier, an approval and calls held for a type check that went on while the
 * program ran gives slices that nest and overlap as the run did: the three calls in three lanes at once, the
 * approval inside its call, the held calls starting only after the check's wait, all inside the run; every
 * event carries the fields the format requires. The CLI writes the same file for a person.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { type TraceEvent, traceEvents, watchStages } from '../../runtime/trace-file.js'
import { verdictTiming } from '../../runtime/typecheck.js'
import type { AnyToolDefinition } from '../../vocabulary/types.js'
import { testRuntime } from '../support/runtime.js'

const tmp = mkdtempSync(join(tmpdir(), 'codeact-trace-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
afterEach(() => {
  verdictTiming.delayMs = undefined
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const slow: AnyToolDefinition = {
  name: 'slow',
  description: 'Waits, then answers its number.',
  parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  output: { type: 'number' },
  execute: async ({ n }: { n: number }) => {
    await sleep(200)
    return n
  },
}
const pay: AnyToolDefinition = {
  name: 'pay',
  description: 'Needs a yes first.',
  parameters: { type: 'object', properties: {} },
  output: { type: 'number' },
  exclusive: true,
  execute: () => 10,
}

/** The trace-event fields Perfetto needs of each event, with the right types. */
function expectWellFormed(events: readonly TraceEvent[]): void {
  for (const e of events) {
    expect(typeof e.name, JSON.stringify(e)).toBe('string')
    expect(['X', 'i', 'M']).toContain(e.ph)
    expect(Number.isFinite(e.ts) && e.ts >= 0, JSON.stringify(e)).toBe(true)
    expect(Number.isInteger(e.pid) && Number.isInteger(e.tid), JSON.stringify(e)).toBe(true)
    if (e.ph === 'X') expect(Number.isFinite(e.dur) && (e.dur ?? -1) >= 0, JSON.stringify(e)).toBe(true)
  }
}

const end = (e: TraceEvent) => e.ts + (e.dur ?? 0)
const inside = (inner: TraceEvent, outer: TraceEvent) => inner.ts >= outer.ts && end(inner) <= end(outer)

describe('a run as a trace', () => {
  it('parallel calls in lanes, the barrier, the approval inside its call, the held calls after the check', async () => {
    const rt = await testRuntime({
      typecheck: 'error',
      typecheckBudgetMs: 60_000,
      tools: [slow, pay],
      approve: ['pay'],
      onApproval: async () => {
        await sleep(100)
        return true
      },
    })
    await rt.runCode('return 0')
    // The check answers late: the program has started and its first calls wait for the verdict.
    verdictTiming.delayMs = 400
    const stages = watchStages()
    const r = await rt.runCode(
      'const xs = await Promise.all([tools.slow({ n: 1 }), tools.slow({ n: 2 }), tools.slow({ n: 3 })])\n' +
        'const paid = await tools.pay()\nreturn xs.reduce((a, b) => a + b, paid)',
    )
    stages.stop()
    expect(r.error, r.observation).toBeNull()
    expect(r.value).toBe(16)
    const trace = traceEvents(r.events, stages.marks, (name) => name === 'pay')
    expectWellFormed(trace)
    JSON.parse(JSON.stringify({ traceEvents: trace }))

    const slices = trace.filter((e) => e.ph === 'X')
    const run = slices.find((e) => e.name === 'run')!
    for (const s of slices) expect(inside(s, run), s.name).toBe(true)

    const calls = slices.filter((e) => e.name === 'slow')
    expect(calls).toHaveLength(3)
    expect(new Set(calls.map((c) => c.tid)).size).toBe(3)
    for (const a of calls) for (const b of calls) expect(a.ts < end(b) && b.ts < end(a)).toBe(true)

    const barrier = slices.find((e) => e.name === 'pay (barrier)')!
    expect(barrier.cat).toBe('barrier')
    for (const c of calls) expect(barrier.ts).toBeGreaterThanOrEqual(end(c))
    const approval = slices.find((e) => e.name === 'approval')!
    expect(approval.tid).toBe(barrier.tid)
    expect(inside(approval, barrier)).toBe(true)
    expect(approval.args).toEqual({ approved: true })

    const prepare = slices.find((e) => e.name.startsWith('prepare'))!
    const sandbox = slices.find((e) => e.name === 'sandbox')!
    expect(end(prepare)).toBeLessThanOrEqual(sandbox.ts)
    const held = slices.find((e) => e.name.startsWith('type check'))!
    expect(held.dur).toBeGreaterThan(0)
    for (const c of calls) expect(c.ts).toBeGreaterThanOrEqual(end(held))

    const names = trace.filter((e) => e.ph === 'M').map((e) => e.args?.['name'])
    expect(names).toEqual(expect.arrayContaining(['run', 'type check', 'calls 1', 'calls 2', 'calls 3']))
  }, 60_000)

  it('codeact run --trace FILE writes the file a trace viewer opens', () => {
    const file = join(tmp, 'run.json')
    const tools = join(tmp, 'tools.mjs')
    writeFileSync(
      tools,
      "export default [{ name: 'wait', description: 'Waits.', parameters: { type: 'object', properties: {} }, execute: () => new Promise((r) => setTimeout(() => r(1), 50)) }]\n",
    )
    const r = spawnSync(process.execPath, ['bin/codeact.mjs', 'run', '-', '--tools', tools, '--trace', file], {
      encoding: 'utf8',
      input: "console.log('two at once')\nawait Promise.all([tools.wait(), tools.wait()])\nreturn 1",
      timeout: 60_000,
    })
    expect(r.status, r.stderr).toBe(0)
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents: TraceEvent[]; displayTimeUnit: string }
    expect(parsed.displayTimeUnit).toBe('ms')
    expectWellFormed(parsed.traceEvents)
    const waits = parsed.traceEvents.filter((e) => e.ph === 'X' && e.name === 'wait')
    expect(new Set(waits.map((w) => w.tid)).size).toBe(2)
    expect(parsed.traceEvents.some((e) => e.ph === 'X' && e.name.startsWith('prepare'))).toBe(true)
    expect(parsed.traceEvents.some((e) => e.ph === 'i' && e.args?.['text'] === 'two at once')).toBe(true)
  }, 60_000)
})
