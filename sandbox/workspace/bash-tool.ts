/**
 * `bash`: a shell command run confined to the workspace (bubblewrap on the host, the container under
 * Docker). A non-zero exit is a result, not an error. A kernel refusal inside the command (writing to a
 * read-only part …) is a result too, but it carries `denied` and is reported to the run as a denial.
 */
import { constants } from 'node:os'
import { defineTool } from '../../vocabulary/define-tool.js'
import { zodApi } from '../../sdk/lazy-module.js'
import type { ToolDefinition } from '../../vocabulary/types.js'
import { opsFor } from './fs-tools.js'
import { WorkspaceError, type WorkspaceOps } from './ops.js'
import { forgetPlainDirs, type WorkspaceState } from './guard.js'

export const DEFAULT_BASH_TIMEOUT_MS = 120_000
export const MAX_BASH_TIMEOUT_MS = 600_000
/** Output kept per stream; the rest is dropped and `truncated` set. */
export const MAX_BASH_OUTPUT_BYTES = 1024 * 1024

function signalNumber(sig: string | null): number {
  const n = sig === null ? undefined : (constants.signals as Record<string, number | undefined>)[sig]
  return n ?? 9
}

function tail(text: string, lines = 5): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n')
}

export function bashTool(state: WorkspaceState, host: WorkspaceOps): ToolDefinition {
  const z = zodApi()
  return defineTool({
    name: 'bash',
    description:
      `Run a bash command in the workspace folder, confined: the workspace is the only writable place (read-only parts refuse writes), ` +
      `/tmp is private and empty, no network unless enabled, no host environment. Returns stdout, stderr and exit_code (non-zero is not an error). ` +
      `If the kernel refused something, denied is EROFS, EACCES or EPERM. Killed with all its processes after timeout_ms (default ${DEFAULT_BASH_TIMEOUT_MS}).`,
    parameters: z.object({
      command: z.string().min(1).describe('A bash command line'),
      timeout_ms: z.number().int().min(1).max(MAX_BASH_TIMEOUT_MS).optional().describe(`Default ${DEFAULT_BASH_TIMEOUT_MS}`),
    }),
    output: z.object({
      stdout: z.string(),
      stderr: z.string(),
      exit_code: z.number().int().describe('128 + signal number when killed by a signal'),
      denied: z.enum(['EROFS', 'EACCES', 'EPERM']).optional(),
      truncated: z.boolean().optional().describe(`Output past ${MAX_BASH_OUTPUT_BYTES} bytes per stream was dropped`),
    }),
    // The command's own timeout governs; the runtime's per-call deadline only backs it up.
    timeoutMs: MAX_BASH_TIMEOUT_MS + 5_000,
    execute: async ({ command, timeout_ms }, ctx) => {
      if (!state.config.exec) throw new WorkspaceError('EPERM', 'bash is turned off for this workspace (exec disabled)')
      const timeoutMs = timeout_ms ?? DEFAULT_BASH_TIMEOUT_MS
      forgetPlainDirs(state)
      let r: Awaited<ReturnType<WorkspaceOps['exec']>>
      try {
        r = await opsFor(ctx, host).exec({ command, cwd: state.config.root, timeoutMs, maxOutputBytes: MAX_BASH_OUTPUT_BYTES }, ctx.signal)
      } finally {
        // What the command did to the tree is news to the policy (a folder it made a symlink, say).
        forgetPlainDirs(state)
      }
      if (r.timedOut) {
        const out = tail(r.stderr) || tail(r.stdout)
        throw new WorkspaceError(
          'ETIMEDOUT',
          `command timed out after ${timeoutMs} ms and was killed with all its processes${out ? `; last output:\n${out}` : ''}`,
        )
      }
      const result: { stdout: string; stderr: string; exit_code: number; denied?: 'EROFS' | 'EACCES' | 'EPERM'; truncated?: boolean } = {
        stdout: r.stdout,
        stderr: r.stderr,
        exit_code: r.exitCode ?? 128 + signalNumber(r.signal),
      }
      if (r.denied) {
        result.denied = r.denied
        ctx.reportDenial({ code: r.denied, message: r.deniedMessage ?? `the kernel refused (${r.denied})` })
      }
      if (r.truncated) result.truncated = true
      return result
    },
  }) as ToolDefinition
}
