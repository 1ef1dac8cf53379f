/**
 * A bound on how many processes (threads included) one `bash` command may have, enforced by the kernel.
 *
 * Two mechanisms, because neither works everywhere:
 * - a pids cgroup of its own (`pids.max`), where this process may create one: cgroup v1's pids hierarchy,
 *   or a cgroup v2 folder that already delegates the `pids` controller. This is what holds for root,
 *   whom the kernel exempts from RLIMIT_NPROC.
 * - `ulimit -u` inside the sandbox, always: in bwrap's fresh user namespace RLIMIT_NPROC counts only that
 *   namespace's processes, so for a non-root user it bounds the command without counting the user's other
 *   processes.
 * The command joins the cgroup before bwrap starts (a wrapper shell writes its own pid, then execs bwrap),
 * so nothing it forks can be outside it.
 */
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface PidsCgroup {
  /** The `cgroup.procs` file the command's first process writes itself into. */
  procsFile: string
  /** Kills whatever is left in it and removes it. */
  release(): Promise<void>
}

let seq = 0
let base: string | null | undefined

/** Where this process may create pids cgroups: found once, `null` when nowhere. */
function cgroupBase(): string | null {
  if (base !== undefined) return base
  base = null
  let own: string[] = []
  let mounts: string[] = []
  try {
    own = readFileSync('/proc/self/cgroup', 'utf8').split('\n')
    mounts = readFileSync('/proc/self/mountinfo', 'utf8').split('\n')
  } catch {
    return base
  }
  const candidates: string[] = []
  for (const m of mounts) {
    const [pre, post] = m.split(' - ')
    const mountPoint = pre?.split(' ')[4]
    const [fstype, , options = ''] = post?.split(' ') ?? []
    if (mountPoint === undefined) continue
    if (fstype === 'cgroup' && options.split(',').includes('pids')) {
      const line = own.find((l) => /^\d+:([^:]*,)?pids(,[^:]*)?:/.test(l))
      if (line !== undefined) candidates.push(join(mountPoint, line.slice(line.lastIndexOf(':') + 1)))
    } else if (fstype === 'cgroup2') {
      const line = own.find((l) => l.startsWith('0::'))
      if (line === undefined) continue
      const dir = join(mountPoint, line.slice(3))
      try {
        if (readFileSync(join(dir, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('pids')) candidates.push(dir)
      } catch {
        // not readable: not ours
      }
    }
  }
  for (const dir of candidates) {
    const probe = join(dir, `codeact-probe-${process.pid}`)
    try {
      mkdirSync(probe)
      writeFileSync(join(probe, 'pids.max'), '1')
      rmdirSync(probe)
      base = dir
      break
    } catch {
      try {
        rmdirSync(probe)
      } catch {
        // never made
      }
    }
  }
  return base
}

/** A fresh pids cgroup with `pids.max = max`, or undefined where none can be made here. */
export function createPidsCgroup(max: number): PidsCgroup | undefined {
  const at = cgroupBase()
  if (at === null) return undefined
  const dir = join(at, `codeact-${process.pid}-${++seq}`)
  try {
    mkdirSync(dir)
    writeFileSync(join(dir, 'pids.max'), String(max))
  } catch {
    try {
      rmdirSync(dir)
    } catch {
      // never made
    }
    return undefined
  }
  return {
    procsFile: join(dir, 'cgroup.procs'),
    async release() {
      for (let attempt = 0; attempt < 50; attempt++) {
        let pids: number[] = []
        try {
          pids = readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number)
        } catch {
          return // gone
        }
        for (const pid of pids) {
          try {
            process.kill(pid, 'SIGKILL')
          } catch {
            // exited meanwhile
          }
        }
        try {
          rmdirSync(dir)
          return
        } catch {
          await new Promise((r) => setTimeout(r, 20)) // the last processes are still being reaped
        }
      }
    },
  }
}
