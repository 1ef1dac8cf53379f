/**
 * Runs and tool calls as they start and end, read from the event log: what metrics, service logs and
 * traces are made of. Every consumer gets the same facts from one place instead of hooks in the dispatch;
 * what it keeps is bounded by the runs and calls in flight (each entry goes at its end event).
 */
import type { EventData, RunEvent, RunErrorKind } from '../vocabulary/types.js'

export interface RunStarted {
  runId: string
  /** Who ran it (an MCP session id), when the run named one. */
  caller: string | undefined
  /** The codeact session, for session runs. */
  sessionId: string | undefined
  time: number
}

export interface RunEnded extends RunStarted {
  /** `ok`, or the run error's kind. */
  outcome: 'ok' | RunErrorKind
  /** The error's code when it has one (SANDBOX_UNAVAILABLE, an errno). */
  code: string | undefined
  durationMs: number
  calls: number
  failedCalls: number
}

export interface CallStarted {
  id: string
  name: string
  /** The run that issued it (program sub-calls), if any. */
  runId: string | undefined
  origin: 'code' | 'native'
  time: number
}

export interface CallEnded extends CallStarted {
  /** `ok`, or the errno code of the failure. */
  outcome: string
  durationMs: number
}

export interface RunWatcher {
  runStarted?(run: RunStarted): void
  runEnded?(run: RunEnded): void
  callStarted?(call: CallStarted): void
  callEnded?(call: CallEnded): void
}

interface OpenRun extends RunStarted {
  calls: number
  failedCalls: number
}

/** What has live events: a Runtime. */
export interface EventSource {
  on(type: 'event', listener: (event: RunEvent) => void): () => void
}

/** Follows `rt`'s events and tells `watcher`; returns the unsubscribe function. */
export function watchRuns(rt: EventSource, watcher: RunWatcher): () => void {
  const runs = new Map<string, OpenRun>()
  const calls = new Map<string, CallStarted>()
  return rt.on('event', (event) => {
    switch (event.type) {
      case 'run/start': {
        const d = event.data as EventData['run/start']
        const run: OpenRun = {
          runId: d.runId,
          caller: d.caller ?? d.session?.caller,
          sessionId: d.session?.id,
          time: event.time,
          calls: 0,
          failedCalls: 0,
        }
        runs.set(d.runId, run)
        watcher.runStarted?.(started(run))
        return
      }
      case 'run/end': {
        const d = event.data as EventData['run/end']
        const run = take(runs, d.runId)
        if (!run) return
        watcher.runEnded?.({
          ...started(run),
          outcome: d.error ? d.error.kind : 'ok',
          code: d.error?.code,
          durationMs: event.time - run.time,
          calls: run.calls,
          failedCalls: run.failedCalls,
        })
        return
      }
      case 'tool/call': {
        const d = event.data as EventData['tool/call']
        const call: CallStarted = { id: d.id, name: d.name, runId: d.parentId, origin: d.origin, time: event.time }
        calls.set(d.id, call)
        watcher.callStarted?.(call)
        return
      }
      case 'tool/result': {
        const d = event.data as EventData['tool/result']
        const call = take(calls, d.id)
        if (!call) return
        const run = call.runId === undefined ? undefined : runs.get(call.runId)
        if (run) {
          run.calls++
          if (!d.result.ok) run.failedCalls++
        }
        watcher.callEnded?.({ ...call, outcome: d.result.ok ? 'ok' : d.result.error.code, durationMs: d.durationMs })
        return
      }
    }
  })
}

/** The entry of `key`, removed from `map`: what an end event closes. */
function take<T>(map: Map<string, T>, key: string): T | undefined {
  const value = map.get(key)
  map.delete(key)
  return value
}

function started(run: OpenRun): RunStarted {
  return { runId: run.runId, caller: run.caller, sessionId: run.sessionId, time: run.time }
}
