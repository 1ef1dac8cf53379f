/**
 * The host's view of a confined shell's process tree, read from /proc. The persistent shell lives inside
 * its own PID namespace; from the host its processes are ordinary ones beneath the bwrap we spawned.
 */
import { readdirSync, readFileSync } from 'node:fs'

function childrenOf(pid: number): number[] {
  const out: number[] = []
  let tasks: string[]
  try {
    tasks = readdirSync(`/proc/${pid}/task`)
  } catch {
    return out
  }
  for (const tid of tasks) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim()
      if (text) for (const c of text.split(/\s+/)) out.push(Number(c))
    } catch {
      // the task ended while we looked
    }
  }
  return out
}

function commOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
  } catch {
    return ''
  }
}

/** Every process beneath `pid`, parents before children. */
export function descendants(pid: number): number[] {
  const out: number[] = []
  const queue = childrenOf(pid)
  while (queue.length) {
    const p = queue.shift()!
    out.push(p)
    queue.push(...childrenOf(p))
  }
  return out
}

/** The first `bash` beneath `pid` (breadth first): the persistent shell under bwrap's own processes. */
export function findShell(pid: number): number | undefined {
  return descendants(pid).find((p) => commOf(p) === 'bash')
}

/** SIGKILL each pid; a pid already gone is fine. */
export function killAll(pids: readonly number[]): void {
  for (const p of pids) {
    try {
      process.kill(p, 'SIGKILL')
    } catch {
      // already gone
    }
  }
}
