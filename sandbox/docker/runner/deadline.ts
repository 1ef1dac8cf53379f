/**
 * The container ends itself at a run's deadline, with or without its host: a host that was SIGKILLed can
 * no longer kill it, and a runner blocked by the program (a synchronous loop, stdin paused) never reads the
 * end of its stdin. Two guards, both armed before the program starts (disarmed when a session's run ends;
 * a single-use container stays armed until it is removed): a timer of this process, and a watchdog process
 * started with the runner, before any program exists, which SIGKILLs the runner (the container's init then
 * exits and the kernel ends every process of the container). The runner's own timer holds when the
 * watchdog is killed; the watchdog holds when the runner is blocked.
 */
import { spawn, type ChildProcess } from 'node:child_process'

// Captured: the program shares this process and can replace `process.kill`, the timers or Math.
const kill = process.kill.bind(process)
const pid = process.pid
const setTimeoutFn = setTimeout
const clearTimeoutFn = clearTimeout
const MathMin = Math.min

// A line "arm SECONDS" starts a timer, replacing the one before; "disarm" stops it (the timer's trap ends
// its sleep with it). The runner's end of the pipe closing (it exited) ends the watchdog and its timer.
const WATCHDOG = `t=
stop() { [ -n "$t" ] && kill "$t" 2>/dev/null; t=; }
while read -r cmd s; do
  stop
  if [ "$cmd" = arm ]; then
    { trap 'kill "$z" 2>/dev/null; exit 0' TERM; sleep "$s" & z=$!; wait "$z" && kill -KILL "$1"; } &
    t=$!
  fi
done
stop`

/** The grace past the host's deadline before the container ends itself. */
export const GRACE_MS = 1000
/** Until the host's first `prepare`: a host that died before attaching never closes this stdin. */
const UNTIL_THE_HOST_SPEAKS_MS = 120_000

let watchdog: ChildProcess | undefined
let timer: ReturnType<typeof setTimeout> | undefined

function startWatchdog(): void {
  try {
    const child = spawn('/bin/sh', ['-c', WATCHDOG, 'codeact-watchdog', String(pid)], { stdio: ['pipe', 'ignore', 'ignore'] })
    child.on('error', () => (watchdog = undefined))
    child.stdin?.on('error', () => {})
    watchdog = child
  } catch {
    watchdog = undefined // the runner's own timer still holds
  }
}

/**
 * Arms both guards for `ms` from now (the host's deadline plus its grace), then calls `then` once the
 * watchdog has its line: a program that blocks this process from its first instant must not keep it unsent.
 */
export function arm(ms: number | undefined, then: () => void = () => {}): void {
  disarm()
  if (typeof ms !== 'number' || !(ms > 0)) return then()
  const capped = MathMin(ms, 2 ** 31 - 1)
  timer = setTimeoutFn(() => kill(pid, 'SIGKILL'), capped)
  const stdin = watchdog?.stdin
  if (!stdin) return then()
  stdin.write(`arm ${(capped / 1000).toFixed(3)}\n`, () => then())
}

export function disarm(): void {
  if (timer !== undefined) clearTimeoutFn(timer)
  timer = undefined
  watchdog?.stdin?.write('disarm\n')
}

/** Started with the runner, before any program exists; armed until the host first speaks. */
export function startGuards(): void {
  startWatchdog()
  arm(UNTIL_THE_HOST_SPEAKS_MS)
}
