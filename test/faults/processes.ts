/** What this test process has left running: its direct child processes, by pid and command line. */
import { execFileSync } from 'node:child_process'

export interface ChildProc {
  pid: number
  args: string
}

export function childrenOf(pid = process.pid): ChildProc[] {
  let out = ''
  try {
    out = execFileSync('ps', ['--ppid', String(pid), '-o', 'pid=,args='], { encoding: 'utf8' })
  } catch {
    return [] // ps exits 1 when there is no child
  }
  return out
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const at = line.indexOf(' ')
      return { pid: Number(line.slice(0, at)), args: line.slice(at + 1) }
    })
}

/** The isolate backend's supervised children of this process. */
export function isolateChildren(): ChildProc[] {
  return childrenOf().filter((c) => c.args.includes('isolate/child.js'))
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

export async function waitFor(predicate: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    if (predicate()) return true
    await new Promise((r) => setTimeout(r, 50))
  }
  return predicate()
}
