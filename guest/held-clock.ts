/**
 * The program's clock while the host holds its tool calls for a type check that is still going on
 * (runtime/run-verdict.ts): the wait is the checker's, not the program's, so the clock stands still through
 * it. `Date.now()`, `new Date()` and `Date()` read the time less every such wait so far, and the run's timers
 * (timers.ts) are due on this clock: a program's own `Promise.race([call, timeout(2000)])` does not fire
 * because the checker was slow.
 *
 * Installed in a realm at its first hold (a run that is never held keeps the realm's own Date). A stateless
 * run's realm is its own; a session's programs never start before their verdict, so never hold.
 */
import {
  type Any,
  DateCtor,
  DateNow,
  dateToString,
  defineField,
  defineGlobal,
  ObjectCreate,
  ProxyCtor,
  ReflectApply,
  ReflectConstruct,
} from './intrinsics.js'

/** Milliseconds the clock has stood still in this realm so far (holds that ended). */
let behind = 0
/** When the current hold began (the real clock), or undefined when the clock runs. */
let stoppedAt: number | undefined
let installed = false

/** The program's time: the real clock less every hold; during a hold, the moment it began. */
export function programNow(): number {
  return (stoppedAt ?? DateNow()) - behind
}

/** True while the clock stands still. */
export function clockHeld(): boolean {
  return stoppedAt !== undefined
}

/** How far behind the real clock the program's runs, counting the hold going on now. */
export function clockBehind(): number {
  return behind + (stoppedAt === undefined ? 0 : DateNow() - stoppedAt)
}

/** The host holds the program's calls (`true`) or let them go (`false`). */
export function holdClock(on: boolean): void {
  if (on) {
    if (stoppedAt !== undefined) return
    stoppedAt = DateNow()
    if (installed) return
    installed = true
    try {
      installHeldDate()
    } catch {
      // A program that froze Date or the global object keeps the real Date; its timers still stand still.
    }
    return
  }
  if (stoppedAt === undefined) return
  behind += DateNow() - stoppedAt
  stoppedAt = undefined
}

function installHeldDate(): void {
  installDate(programNow)
}

/**
 * `Date.now()`, `new Date()` and `Date()` read `read` (the held clock, a session's replayed one); a date built
 * from arguments is the real Date's, and `instanceof Date` still holds.
 */
export function installDate(read: () => number): void {
  function now() {
    return read()
  }
  defineField(DateCtor, 'now', now, false)
  const handler = ObjectCreate(null)
  handler.construct = (target: Any, args: Any, newTarget: Any) =>
    ReflectConstruct(target, args.length === 0 ? [read()] : args, newTarget === ClockDate ? target : newTarget)
  handler.apply = () => ReflectApply(dateToString, ReflectConstruct(DateCtor, [read()]), [])
  const ClockDate = new ProxyCtor(DateCtor, handler)
  defineField(DateCtor.prototype, 'constructor', ClockDate, false)
  defineGlobal('Date', ClockDate, true)
}
