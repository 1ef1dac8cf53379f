/**
 * `WorkspaceOps` (sandbox/workspace/ops.ts) carried out by a container's runner on the mounted workspace:
 * what the built-in workspace tools call as `ctx.services.workspace` when the Docker backend runs.
 * Paths cross as container paths; in messages they come back workspace-relative (never the host's or the
 * container's absolute path, as the host ops say them); answers are validated.
 */
import { z } from 'zod'
import { WorkspaceError, type WorkspaceErrorCode, type WorkspaceOps } from '../workspace/ops.js'
import type { RunnerChannel } from './channel.js'
import { toContainerPath, type WorkspaceMount } from './mount.js'
import type { FromRunner } from './protocol.js'
import { OP_ERROR_CODES } from './wire-messages.js'

const CODES = new Set<string>(OP_ERROR_CODES)

/** Container paths in a message, workspace-relative: `/workspace/src/a.ts` -> `src/a.ts`, `/workspace` -> `.`. */
export function toWorkspaceText(mount: WorkspaceMount, text: string): string {
  return text.split(`${mount.mountAt}/`).join('').split(mount.mountAt).join('.')
}

/** Routes op messages of one container; its answers arrive through `onResult`. */
export class OpsClient {
  private next = 1
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>()

  constructor(
    private readonly channel: RunnerChannel,
    private readonly mount: WorkspaceMount,
  ) {
    channel.onClose(() => {
      for (const p of this.pending.values()) p.reject(new WorkspaceError('EIO', 'the container serving the workspace ended'))
      this.pending.clear()
    })
  }

  onResult(msg: Extract<FromRunner, { type: 'opResult' }>): void {
    const p = this.pending.get(msg.id)
    if (!p) return
    this.pending.delete(msg.id)
    if (msg.ok) return p.resolve(msg.value)
    const code = msg.error && CODES.has(msg.error.code) ? (msg.error.code as WorkspaceErrorCode) : 'EIO'
    p.reject(new WorkspaceError(code, toWorkspaceText(this.mount, msg.error?.message ?? 'the op failed')))
  }

  call(op: string, args: unknown[], signal?: AbortSignal): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new WorkspaceError('ECANCELED', 'cancelled'))
      const id = this.next++
      this.pending.set(id, { resolve, reject })
      if (!this.channel.send({ type: 'op', id, op, root: this.mount.mountAt, args })) {
        this.pending.delete(id)
        return reject(new WorkspaceError('EIO', 'the container serving the workspace ended'))
      }
      signal?.addEventListener('abort', () => this.channel.send({ type: 'cancel', id }), { once: true })
    })
  }
}

const entryType = z.enum(['file', 'dir', 'symlink', 'other'])
const schemas = {
  text: z.string(),
  none: z.null(),
  dir: z.array(z.object({ name: z.string(), type: entryType, size: z.number() })),
  stat: z.object({ type: entryType, size: z.number(), mtimeMs: z.number(), mode: z.number() }),
  walk: z.object({ entries: z.array(z.object({ path: z.string(), type: entryType })), truncated: z.boolean() }),
  exec: z.object({
    stdout: z.string(),
    stderr: z.string(),
    exitCode: z.number().nullable(),
    signal: z.string().nullable(),
    timedOut: z.boolean(),
    truncated: z.boolean(),
    denied: z.enum(['EROFS', 'EACCES', 'EPERM']).optional(),
    deniedMessage: z.string().optional(),
  }),
}

/** The ops over whichever container `client()` yields (the run's, or a pooled one outside runs). */
export function containerWorkspaceOps(mount: WorkspaceMount, client: () => Promise<OpsClient>): WorkspaceOps {
  const inside = (p: string): string => {
    const c = toContainerPath(mount, p)
    if (c === undefined) throw new WorkspaceError('EACCES', `${p}: outside the workspace`)
    return c
  }
  async function call<T>(schema: z.ZodType<T>, op: string, args: unknown[], signal?: AbortSignal): Promise<T> {
    const value = await (await client()).call(op, args, signal)
    const parsed = schema.safeParse(value)
    if (!parsed.success) throw new WorkspaceError('EIO', `the container answered ${op} with an unreadable value`)
    return parsed.data
  }
  return {
    readFile: async (p, maxBytes) => call(schemas.text, 'readFile', [inside(p), maxBytes]),
    writeFile: async (p, content) => void (await call(schemas.none, 'writeFile', [inside(p), content])),
    mkdir: async (p) => void (await call(schemas.none, 'mkdir', [inside(p)])),
    remove: async (p, recursive) => void (await call(schemas.none, 'remove', [inside(p), recursive])),
    readdir: async (p) => call(schemas.dir, 'readdir', [inside(p)]),
    stat: async (p) => call(schemas.stat, 'stat', [inside(p)]),
    walk: async (p, limit) => call(schemas.walk, 'walk', [inside(p), limit]),
    exec: async (request, signal) => {
      const result = await call(schemas.exec, 'exec', [{ ...request, cwd: inside(request.cwd) }], signal)
      if (signal?.aborted) throw new WorkspaceError('ECANCELED', 'the command was cancelled')
      const { denied, deniedMessage, ...rest } = result
      return {
        ...rest,
        ...(denied ? { denied } : {}),
        ...(deniedMessage !== undefined ? { deniedMessage: toWorkspaceText(mount, deniedMessage) } : {}),
      }
    },
  }
}
