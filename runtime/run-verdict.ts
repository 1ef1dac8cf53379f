/**
 * The verdict stage, for a program that started before its type check answered (run-prepare.ts's
 * `pendingVerdict`): in `error` mode its tool calls and console lines wait at a VerdictGate; a clean
 * verdict lets them through in order, a blocking one drops them and cancels the run, and the run's result
 * is the type error — nothing of the attempt reached the world.
 */
import type { SandboxHost } from '../sandbox/types.js'
import type { RunError } from '../vocabulary/types.js'
import { failure } from './dispatch.js'
import { judge } from './run-errors.js'
import { runMarks } from './run-marks.js'
import type { TypeCheckOutcome } from './typecheck.js'
import { VerdictGate } from './verdict-gate.js'

/** What a held call is answered when the verdict stopped the run (the program never sees it: it is aborted). */
const TYPE_STOPPED = JSON.stringify(failure('ECANCELED', 'the program does not type-check; nothing ran'))

export interface PendingVerdict {
  /** The host the sandbox gets: the run's own, behind the gate while the verdict is out (mode `error`). */
  readonly host: SandboxHost
  /** Resolves with the verdict's notes once it is in; `stop` is set if it blocked the run. */
  readonly judged: Promise<{ stop?: RunError; notes: string[] }>
}

/** Waits for `pending` beside the running program; a blocking verdict in `error` mode calls `cancel`. */
export function awaitVerdict(
  pending: Promise<TypeCheckOutcome>,
  mode: 'error' | 'warn',
  text: string,
  host: SandboxHost,
  cancel: (why: Error) => void,
): PendingVerdict {
  const gate = mode === 'error' ? new VerdictGate() : undefined
  const judged = pending.then((checked) => {
    runMarks.at?.('verdict')
    const verdict = judge(checked, mode, text)
    if (verdict.stop) {
      gate?.block()
      cancel(new Error('the program does not type-check'))
    } else gate?.open()
    return verdict
  })
  if (!gate) return { host, judged }
  return {
    host: {
      callTool: (name, argsJson) => gate.call(() => host.callTool(name, argsJson), TYPE_STOPPED),
      log: (entries) => gate.log(() => host.log(entries)),
      onHold: (listener) => gate.onHold(listener),
    },
    judged,
  }
}
