/**
 * A run as a Chrome trace-event file (the JSON Perfetto and chrome://tracing open): `codeact run --trace FILE`.
 * Built from the run's events (the log every run writes) and, where the run was watched as it went, its
 * stage marks (runtime/run-marks.ts): the prepare stage (normalise, type check, compile), the sandbox, the
 * wait for a type check that went on while the program ran (its calls held), each tool call as a slice in
 * a lane of its own while calls overlap, an approval inside its call, a barrier (an exclusive call) named so,
 * console lines as instants. Times are microseconds from the run's start, as the format wants.
 */
import type { RunEvent } from '../vocabulary/types.js'
import { type RunPoint, runMarks } from './run-marks.js'

/** One trace event: `X` a complete slice (ts + dur), `i` an instant, `M` a lane's name. */
export interface TraceEvent {
  name: string
  ph: 'X' | 'i' | 'M'
  ts: number
  dur?: number
  pid: number
  tid: number
  cat?: string
  s?: 't'
  args?: Record<string, unknown>
}

export interface TraceMark {
  point: RunPoint
  time: number
}

const PID = 1
/** The run, its stages and console lines. */
const RUN_LANE = 1
/** The wait for a type check that went on while the program ran. */
const CHECK_LANE = 2
/** The first lane of tool calls; a call takes the lowest one free at its start. */
const FIRST_CALL_LANE = 3

/** Records the stage marks of the runs that follow, until `stop()` (one run at a time: the CLI's). */
export function watchStages(): { marks: TraceMark[]; stop(): void } {
  const marks: TraceMark[] = []
  const before = runMarks.at
  runMarks.at = (point) => {
    marks.push({ point, time: Date.now() })
    before?.(point)
  }
  return {
    marks,
    stop: () => {
      runMarks.at = before
    },
  }
}

/** The trace events of one run: `events` from its `run/start` to its `run/end`; `exclusive` names barriers. */
export function traceEvents(
  events: readonly RunEvent[],
  marks: readonly TraceMark[] = [],
  exclusive?: (tool: string) => boolean,
): TraceEvent[] {
  const start = events.find((e) => e.type === 'run/start')
  const t0 = start?.time ?? events[0]?.time ?? 0
  const us = (time: number) => Math.max(0, (time - t0) * 1000)
  const end = [...events].reverse().find((e) => e.type === 'run/end')
  const lastTime = end?.time ?? events.at(-1)?.time ?? t0
  const out: TraceEvent[] = [lane(RUN_LANE, 'run'), lane(CHECK_LANE, 'type check')]
  const slice = (name: string, tid: number, from: number, to: number, cat: string, args?: Record<string, unknown>): TraceEvent => ({
    name,
    ph: 'X',
    ts: us(from),
    dur: Math.max(0, to - from) * 1000,
    pid: PID,
    tid,
    cat,
    ...(args ? { args } : {}),
  })
  const runArgs = end?.type === 'run/end' ? { ok: (end as RunEvent<'run/end'>).data.ok } : {}
  out.push(slice('run', RUN_LANE, t0, lastTime, 'run', runArgs))
  out.push(...stageSlices(marks, t0, lastTime, slice))
  out.push(...callSlices(events, lastTime, slice, exclusive))
  for (const e of events)
    if (e.type === 'console') {
      const { level, text } = (e as RunEvent<'console'>).data
      out.push({ name: `console.${level}`, ph: 'i', s: 't', ts: us(e.time), pid: PID, tid: RUN_LANE, cat: 'console', args: { text } })
    }
  return out
}

/** The whole file: `{ traceEvents, displayTimeUnit }`. */
export function traceJson(events: readonly RunEvent[], marks: readonly TraceMark[] = [], exclusive?: (tool: string) => boolean): string {
  return JSON.stringify({ traceEvents: traceEvents(events, marks, exclusive), displayTimeUnit: 'ms' })
}

type Slice = (name: string, tid: number, from: number, to: number, cat: string, args?: Record<string, unknown>) => TraceEvent

function lane(tid: number, name: string): TraceEvent {
  return { name: 'thread_name', ph: 'M', ts: 0, pid: PID, tid, args: { name } }
}

/** Prepare (run/start to `staged`), the sandbox (`sandbox` to `ran`), the type-check wait (`sandbox` to `verdict`). */
function stageSlices(marks: readonly TraceMark[], t0: number, last: number, slice: Slice): TraceEvent[] {
  const at = (p: RunPoint) => marks.find((m) => m.point === p)?.time
  const out: TraceEvent[] = []
  const staged = at('staged')
  const sandbox = at('sandbox')
  if (staged !== undefined) out.push(slice('prepare: normalise, type check, compile', RUN_LANE, t0, staged, 'stage'))
  if (sandbox !== undefined) out.push(slice('sandbox', RUN_LANE, sandbox, at('ran') ?? last, 'stage'))
  const verdict = at('verdict')
  if (verdict !== undefined)
    out.push(slice('type check (calls held until its verdict)', CHECK_LANE, sandbox ?? staged ?? t0, verdict, 'wait'))
  return out
}

/** Each call from its `tool/call` to its `tool/result`, in the lowest lane free at its start; its approval inside it. */
function callSlices(events: readonly RunEvent[], last: number, slice: Slice, exclusive?: (tool: string) => boolean): TraceEvent[] {
  const results = new Map<string, number>()
  const asked = new Map<string, number>()
  const answers = new Map<string, { time: number; approved: boolean }>()
  for (const e of events) {
    if (e.type === 'tool/result') results.set((e as RunEvent<'tool/result'>).data.id, e.time)
    if (e.type === 'approval/request') asked.set((e as RunEvent<'approval/request'>).data.callId, e.time)
    if (e.type === 'approval/answer') {
      const { callId, approved } = (e as RunEvent<'approval/answer'>).data
      answers.set(callId, { time: e.time, approved })
    }
  }
  const laneEnds: number[] = []
  const out: TraceEvent[] = []
  for (const e of events) {
    if (e.type !== 'tool/call') continue
    const { id, name } = (e as RunEvent<'tool/call'>).data
    const ends = results.get(id) ?? last
    // Strictly after: a call that starts in the millisecond another ended may still overlap it.
    let at = laneEnds.findIndex((free) => free < e.time)
    if (at === -1) {
      at = laneEnds.length
      out.push(lane(FIRST_CALL_LANE + at, `calls ${at + 1}`))
    }
    laneEnds[at] = ends
    const tid = FIRST_CALL_LANE + at
    const barrier = exclusive?.(name) === true
    out.push(slice(barrier ? `${name} (barrier)` : name, tid, e.time, ends, barrier ? 'barrier' : 'tool', { callId: id }))
    const from = asked.get(id)
    const answer = answers.get(id)
    if (from !== undefined) out.push(slice('approval', tid, from, answer?.time ?? ends, 'wait', { approved: answer?.approved ?? null }))
  }
  return out
}
