/**
 * Who owns a codeact container: the host process that made it, named so that the reaper can tell for sure
 * that this process is gone. A pid alone is not enough — pids are reused, and another process in another
 * pid namespace (a container running codeact against the same engine) can have the same pid and hostname.
 * So each container carries the owner's hostname and pid, the kernel's boot id, the owner's pid namespace
 * and the owner's start time (clock ticks since boot). Where Linux's /proc is missing, only what is known
 * is written, and the reaper then never removes the container on a guess.
 */
import fs from 'node:fs'
import os from 'node:os'

export const OWNER_LABEL = 'codeact.owner'
export const BOOT_LABEL = 'codeact.boot'
export const PIDNS_LABEL = 'codeact.pidns'
export const STARTED_LABEL = 'codeact.started'

function read(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim()
  } catch {
    return undefined
  }
}

export function bootId(): string | undefined {
  return read('/proc/sys/kernel/random/boot_id')
}

export function pidNamespace(): string | undefined {
  try {
    return fs.readlinkSync('/proc/self/ns/pid')
  } catch {
    return undefined
  }
}

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot. */
export function startTime(pid: number | 'self'): string | undefined {
  const stat = read(`/proc/${pid}/stat`)
  if (stat === undefined) return undefined
  // The command name (field 2) is in parentheses and may hold spaces or ')': count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return fields[19]
}

/** `hostname:pid` of this process. */
export function ownerId(): string {
  return `${os.hostname()}:${process.pid}`
}

/** The labels naming this process as a container's owner. */
export function ownerLabels(): Record<string, string> {
  const labels: Record<string, string> = { [OWNER_LABEL]: ownerId() }
  const boot = bootId()
  const ns = pidNamespace()
  const started = startTime('self')
  if (boot) labels[BOOT_LABEL] = boot
  if (ns) labels[PIDNS_LABEL] = ns
  if (started) labels[STARTED_LABEL] = started
  return labels
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' // alive, someone else's
  }
}

/**
 * Is the owner of a container, by its labels, a process that is certainly gone? Only for an owner of this
 * machine, this boot and this pid namespace (else we cannot see it, so it may be alive); gone when its pid
 * is free, or when the pid now belongs to a process that started at another time (the pid was reused).
 * Containers of older codeact versions (no boot / namespace labels) fall back to hostname and a free pid.
 */
export function ownerGone(labels: Record<string, string> | undefined): boolean {
  const owner = labels?.[OWNER_LABEL]
  if (!labels || !owner) return false
  const at = owner.lastIndexOf(':')
  const host = owner.slice(0, at)
  const pid = Number(owner.slice(at + 1))
  if (at < 0 || host !== os.hostname() || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false
  const boot = labels[BOOT_LABEL]
  const ns = labels[PIDNS_LABEL]
  if (boot !== undefined && boot !== bootId()) return false
  if (ns !== undefined && ns !== pidNamespace()) return false
  if (!processAlive(pid)) return true
  const started = labels[STARTED_LABEL]
  // Alive: it is the owner unless a start time says the pid was given to another process since.
  return started !== undefined && boot !== undefined && ns !== undefined && startTime(pid) !== undefined && startTime(pid) !== started
}
