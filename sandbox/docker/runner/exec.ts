/**
 * The `exec` workspace op inside the container: `/bin/sh -c` in its own process group (a kill reaches
 * everything it started), output capped per stream, killed at its timeout or on the host's cancel. A
 * refusal in its stderr is named by the one denial table (sandbox/workspace/denials.ts), as bwrap's is.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { Capped } from '../../workspace/capped.js'
import { denialInStderr } from '../../workspace/denials.js'
import { WorkspaceError, type ExecRequest, type ExecResult } from '../../workspace/ops.js'
import { DENIAL_TEXT_MAX } from '../wire-messages.js'

const running = new Map<unknown, () => void>() // op id -> kill of its command
const ENV = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/tmp', LANG: 'C.UTF-8' }

export function cancelExec(id: unknown): void {
  running.get(id)?.()
}

function resultOf(stdout: string, stderr: string, rest: Omit<ExecResult, 'stdout' | 'stderr'>): ExecResult {
  const result: ExecResult = { stdout, stderr, ...rest }
  const denied = denialInStderr(stderr)
  if (denied) {
    result.denied = denied.code
    result.deniedMessage = denied.line.slice(0, DENIAL_TEXT_MAX)
  }
  return result
}

export function exec(request: unknown, id: number): Promise<ExecResult> {
  const { command, cwd, timeoutMs, maxOutputBytes } = (request ?? {}) as ExecRequest
  return new Promise((resolve, reject) => {
    let child: ChildProcess
    try {
      child = spawn('/bin/sh', ['-c', String(command)], { cwd, detached: true, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] })
    } catch (e) {
      return reject(e)
    }
    const out = new Capped(maxOutputBytes)
    const err = new Capped(maxOutputBytes)
    let timedOut = false
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
    running.set(id, kill)
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk))
    child.stderr?.on('data', (chunk: Buffer) => err.push(chunk))
    const timer = setTimeout(() => {
      timedOut = true
      kill()
    }, timeoutMs)
    child.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      running.delete(id)
      reject(
        e.code === 'ENOENT' && !existsSync('/bin/sh') ? new WorkspaceError('SANDBOX_UNAVAILABLE', 'the runner image has no /bin/sh') : e,
      )
    })
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer)
      running.delete(id)
      resolve(resultOf(out.text(), err.text(), { exitCode, signal, timedOut, truncated: out.truncated || err.truncated }))
    })
  })
}
