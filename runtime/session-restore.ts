/**
 * Restore by replay: when a session's realm is gone (expired, freed past the cap, a memory kill, a dead
 * process) or a new runtime resumes a session found in its `logFile`, its earlier runs are run again, in
 * order, into a new realm: the same programs, each tool call answered with its recorded result (no tool
 * runs twice; nothing reaches the scheduler, the hooks or the log) and the same entropy (Math.random's
 * seed, Date's recorded times). A run that itself ended the realm (it ran out of memory …) is not
 * replayed, and the note says what was lost. The observation of the run that triggered the restore says,
 * in one line, that the session was restored (or that it could not be, and what to redo). On a backend whose
 * programs have effects of their own (Docker: node:fs, child_process in the container) those happen again,
 * and the line names them, run by run.
 */
import type { Sandbox, SandboxHost, SandboxLimits, SandboxOutcome } from '../sandbox/types.js'
import { MAX_CLOCK_READS } from '../guest/limits.js'
import type { HistoryRun } from './session-history.js'

export interface RestoreRequest {
  sessionId: string
  runId: string
  runs: readonly HistoryRun[]
  sandbox: Sandbox
  toolNames: readonly string[]
  limits: SandboxLimits
  callerId?: string
  signal: AbortSignal
}

export interface Restored {
  /** The realm holds the replayed state; false: the run goes on in a fresh realm. */
  ok: boolean
  /** The one line for the observation. */
  note: string
}

export async function restoreSession(req: RestoreRequest): Promise<Restored> {
  const replayable = req.runs.filter((r) => r.lost === undefined)
  const lost = req.runs.filter((r) => r.lost !== undefined)
  const lostText = lost.length
    ? `; ${lost.map((r) => `run ${req.runs.indexOf(r) + 1} ${r.lost}`).join(', ')} and was not replayed, so what ${lost.length === 1 ? 'it' : 'they'} assigned is gone`
    : ''
  if (replayable.length === 0) {
    return { ok: true, note: `Note: the session's realm was gone; nothing earlier could be replayed${lostText}.` }
  }
  let diverged: string | undefined
  const ownEffects: Array<{ run: number; effects: readonly string[] }> = []
  for (const [i, run] of replayable.entries()) {
    const js = run.js
    if (js === undefined) return failed(`run ${req.runs.indexOf(run) + 1} no longer compiles`)
    const host = new ReplayHost(run)
    const outcome: SandboxOutcome = await req.sandbox.run(
      {
        runId: `${req.runId}.replay${i + 1}`,
        js,
        toolNames: req.toolNames,
        limits: req.limits,
        ...(req.callerId !== undefined ? { callerId: req.callerId } : {}),
        session: { id: req.sessionId, realm: i === 0 ? 'new' : 'existing' },
        entropy: { seed: run.seed, clock: run.clock },
      },
      host,
      req.signal,
    )
    if (!outcome.ok && ['session_lost', 'memory', 'timeout', 'aborted', 'sandbox_unavailable'].includes(outcome.error.kind)) {
      return failed(`replaying run ${req.runs.indexOf(run) + 1} failed (${outcome.error.kind}: ${outcome.error.message})`)
    }
    if (diverged === undefined && (host.diverged || outcome.ok !== run.ok)) diverged = `run ${req.runs.indexOf(run) + 1}`
    ownEffects.push({ run: req.runs.indexOf(run) + 1, effects: outcome.ownEffects ?? [] })
  }
  const n = replayable.length
  const clockCut = replayable.filter((r) => r.clock.length >= MAX_CLOCK_READS).map((r) => `run ${req.runs.indexOf(r) + 1}`)
  const differs =
    (diverged ? `; ${diverged} did not replay as it first ran, so state may differ from before` : '') +
    (clockCut.length
      ? `; ${clockCut.join(', ')} read the clock more than ${MAX_CLOCK_READS} times: the later times came from the real clock and may differ`
      : '')
  return {
    ok: true,
    note: req.sandbox.capabilities.effectsOnlyThroughHost
      ? `Note: the session was restored: its realm was gone, so its ${n} earlier run${n === 1 ? ' was' : 's were'} replayed with the recorded tool results (no tool ran again)${lostText}${differs}.`
      : `Note: the session was restored: its realm was gone, so its ${n} earlier run${n === 1 ? '' : 's'} ran again in a new sandbox, tool calls answered from the record${ranAgain(ownEffects)}${lostText}${differs}.`,
  }
}

/**
 * A backend whose programs have Node (Docker) runs them again for real: what a program did itself (files
 * it changed with node:fs, processes it started) happened again, and the note says so, run by run.
 */
function ranAgain(runs: ReadonlyArray<{ run: number; effects: readonly string[] }>): string {
  const did = runs.filter((r) => r.effects.length > 0)
  const quiet = runs.filter((r) => r.effects.length === 0).map((r) => r.run)
  const them = `run${quiet.length === 1 ? '' : 's'} ${quiet.join(', ')}`
  if (did.length === 0)
    return `; ${them} changed no file through node:fs and started no process of ${quiet.length === 1 ? 'its' : 'their'} own`
  const list = did.map((r) => `run ${r.run}: ${r.effects.join(', ')}`).join('; ')
  return (
    `, but what the programs did themselves happened again (files written with node:fs were written again, processes were started again) — ${list}` +
    (quiet.length ? `; ${them} did none of that` : '')
  )
}

function failed(why: string): Restored {
  return {
    ok: false,
    note: `Note: the session could not be restored (${why}); this run started in a fresh realm: earlier bindings are gone, redo their assignments.`,
  }
}

/** Answers each tool call of a replayed run with the recorded result of the same index; runs nothing. */
class ReplayHost implements SandboxHost {
  readonly #run: HistoryRun
  #issued = 0
  diverged = false

  constructor(run: HistoryRun) {
    this.#run = run
  }

  async callTool(name: string): Promise<string> {
    const k = this.#issued++
    const text = this.#run.results[k]
    if (text === undefined || this.#run.names[k] !== name) {
      this.diverged = true
      return JSON.stringify({
        ok: false,
        error: { code: 'ECANCELED', message: 'this call was not made when the run first ran; a replay answers no new calls' },
      })
    }
    return text
  }

  log(): void {
    // A replay's console output was already shown when the run first ran.
  }
}
