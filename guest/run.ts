/**
 * One run of a program: the per-run half of the prelude. The bridge calls `codeactPrelude` once per run
 * (a session realm once per run too: its globals stay, the run's state is new) with its host callbacks and
 * the run's config; the answer, `runProgram(programFn)`, awaits the program, waits for what it left
 * running, and resolves to the JSON text of an Outcome. `runProgram.fireTimer(id)` is how a host timer
 * fires; `runProgram.holdClock(on)` how the host says it holds the program's calls for their type check
 * (held-clock.ts: the program's clock and timers stand still meanwhile). `urlRecord` and `urlSet` are the
 * host's URL parser (url.ts), handed over with the rest of the host's callbacks.
 *
 *   config = { toolNames: string[], maxOutputBytes: number, session?: true, entropy?: { seed, clock } }
 */
import { makeConsole, type HostLog } from './console.js'
import { useEntropy } from './entropy.js'
import { holdClock } from './held-clock.js'
import { inspect, joinParts } from './inspect.js'
import {
  type Any,
  defineConstant,
  defineGlobal,
  JSONstringify,
  list,
  ObjectDefineProperty,
  PromiseCtor,
  promiseResolve,
  promiseThen,
  put,
  ReflectApply,
  StringCtor,
  stringSlice,
} from './intrinsics.js'
import { newRunState, type Outcome, type RunState } from './run-state.js'
import { type HostTimer, makeTimers, type RunTimers } from './timers.js'
import { ToolCallError } from './tool-error.js'
import { type HostCall, makeTools } from './tools.js'
import { type UrlRecordFn, type UrlSetFn, useUrlHost } from './url.js'
import { valueToJson } from './value.js'

export type RunConfig = { toolNames: string[]; maxOutputBytes: number; session?: boolean; entropy?: { seed: unknown; clock?: unknown } }
export type RunProgram = ((programFn: Any) => Promise<string>) & { fireTimer(id: number): void; holdClock(on: boolean): void }

function describeError(e: Any): { name: string; message: string; stack?: string } {
  let name = 'Error'
  let message = ''
  let stack: string | undefined
  try {
    if (e !== null && (typeof e === 'object' || typeof e === 'function')) {
      name = StringCtor(e.name || 'Error')
      message = StringCtor(e.message === undefined ? e : e.message)
      const s = e.stack
      if (typeof s === 'string') stack = ReflectApply(stringSlice, s, [0, 4000])
    } else {
      name = 'Thrown'
      message = inspect(e)
    }
  } catch {
    message = '[unprintable error]'
  }
  return { name: ReflectApply(stringSlice, name, [0, 200]), message: ReflectApply(stringSlice, message, [0, 4000]), stack }
}

function pendingNotes(run: RunState, inFlightAtSettle: number): Any[] {
  const notes = list()
  const waited = inFlightAtSettle + run.callsLate
  if (waited > 0) {
    put(
      notes,
      waited +
        ' tool call' +
        (waited === 1 ? ' was' : 's were') +
        ' still running when the program finished (not awaited, e.g. inside forEach(async …)); ' +
        'the run waited for ' +
        (waited === 1 ? 'it' : 'them') +
        '. Await each call: for (const x of items) await tools.f(x) — or all at once: await Promise.all(items.map((x) => tools.f(x))).',
    )
  }
  if (run.intervalsStopped > 0)
    put(notes, 'a setInterval was still running when the program finished; it was stopped (clearInterval it when done).')
  return notes
}

/** What happens once the body settled with `value`: `complete` reports it when nothing is pending any more. */
function onSettled(run: RunState, timers: RunTimers, out: ReturnType<typeof makeConsole>, value: unknown): void {
  if (run.completed) return
  run.settled = true
  const inFlightAtSettle = run.callsInFlight
  timers.stopIntervals()
  run.complete = () => {
    if (run.completed) return
    run.completed = true
    timers.clearAll()
    let s: { json: string | undefined; note: string | undefined }
    try {
      s = valueToJson(value)
    } catch {
      s = { json: undefined, note: 'the return value could not be reported' }
    }
    const notes = pendingNotes(run, inFlightAtSettle)
    if (s.note) put(notes, s.note)
    run.finishWith({
      ok: true,
      valueJson: s.json,
      valueNote: notes.length ? joinParts(notes, '\n') : undefined,
      droppedOutputBytes: out.droppedBytes(),
      logLines: out.logLines(),
    })
  }
  timers.maybeIdle()
}

export function codeactPrelude(
  hostCall: HostCall,
  hostLog: HostLog,
  config: RunConfig,
  hostTimer: HostTimer | undefined,
  urlRecord: UrlRecordFn,
  urlSet: UrlSetFn,
): RunProgram {
  useUrlHost(urlRecord, urlSet)
  const inSession = config.session === true
  const takeClock = config.entropy ? useEntropy(config.entropy) : undefined
  const out = makeConsole(hostLog, config.maxOutputBytes)
  const run = newRunState()
  const timers = makeTimers(run, hostTimer)
  run.fail = (e) => {
    if (run.completed) return
    run.completed = true
    timers.clearAll()
    run.finishWith({ ok: false, error: describeError(e), droppedOutputBytes: out.droppedBytes(), logLines: out.logLines() })
  }
  const tools = makeTools(run, hostCall, config.toolNames, inSession, timers.maybeIdle)

  function runProgram(programFn: Any): Promise<string> {
    return new PromiseCtor((resolve) => {
      run.finishWith = (o: Outcome) => {
        if (takeClock) ObjectDefineProperty(o, 'clock', { __proto__: null, value: takeClock(), enumerable: true })
        resolve(JSONstringify(o))
      }
      let p: unknown
      try {
        // The program function takes no parameters (program/normalise.ts): these are its globals, as the
        // SDK declares them. console stays writable for a backend that routes its own console to it.
        defineConstant('tools', tools, inSession)
        defineConstant('ToolCallError', ToolCallError, inSession)
        defineGlobal('console', out.console, true)
        p = programFn(tools, ToolCallError, out.console)
      } catch (e) {
        run.fail(e)
        return
      }
      const onValue = (value: unknown): void => onSettled(run, timers, out, value)
      // The program is an async function, so p is a native promise: the captured then reads its result
      // directly. Promise.resolve(p) would not: it looks up p.constructor and may call a patched p.then.
      try {
        ReflectApply(promiseThen, p, [onValue, run.fail])
      } catch {
        ReflectApply(promiseThen, promiseResolve(p), [onValue, run.fail])
      }
    })
  }
  ObjectDefineProperty(runProgram, 'fireTimer', { __proto__: null, value: timers.fire })
  const hold = (on: boolean): void => {
    holdClock(on)
    if (!on) timers.thaw()
  }
  ObjectDefineProperty(runProgram, 'holdClock', { __proto__: null, value: hold })
  return runProgram as RunProgram
}
