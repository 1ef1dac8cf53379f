/**
 * Workspace ops served inside the container (the WorkspaceOps seam of sandbox/workspace/ops.ts) on the
 * mounted workspace, by the host's own by-descriptor walk beneath the root (sandbox/workspace/beneath*.ts):
 * a component that is — or has just become — a symlink is refused (EACCES), never followed, so no swap
 * between the host's check and this use reaches outside the workspace. Paths arrive as container paths,
 * already checked by the host's policy (the read-only parts are also mounted read-only); messages name
 * them workspace-relative. Writes replace the file atomically (a temp file renamed over the name).
 */
import { mkdirBeneath, readTextBeneath, readdirBeneath, removeBeneath, statBeneath, walkBeneath } from '../../workspace/beneath-files.js'
import { writeBeneath } from '../../workspace/beneath-write.js'
import { WorkspaceError } from '../../workspace/ops.js'
import { OP_ERROR_CODES, OP_ERROR_TEXT_MAX, type FromRunner } from '../wire-messages.js'
import { cancelExec, exec } from './exec.js'
import { own } from './wire.js'

const ReflectApply = Reflect.apply
const startsWith = String.prototype.startsWith
const sliceStr = String.prototype.slice
const PASS = new Set(OP_ERROR_CODES)
const PromiseCtor = Promise
const promiseThen = Promise.prototype.then

/** The workspace-relative form of a container path; EACCES for anything outside the root. */
function relOf(root: string, p: unknown): string {
  const path = String(p)
  if (path === root) return '.'
  if (!ReflectApply(startsWith, path, [`${root}/`])) throw new WorkspaceError('EACCES', 'the path is outside the workspace')
  return ReflectApply(sliceStr, path, [root.length + 1]) as string
}

type Op = (root: string, args: unknown[], id: number) => Promise<unknown>

const ops: Record<string, Op> = {
  readFile: (root, [p, maxBytes]) => readTextBeneath(root, relOf(root, p), Number(maxBytes)),
  writeFile: (root, [p, content]) => writeBeneath(root, relOf(root, p), String(content)),
  mkdir: (root, [p]) => mkdirBeneath(root, relOf(root, p)),
  remove: (root, [p, recursive]) => {
    const rel = relOf(root, p)
    if (rel === '.') throw new WorkspaceError('EPERM', 'the workspace root cannot be removed')
    return removeBeneath(root, rel, recursive === true)
  },
  readdir: (root, [p]) => readdirBeneath(root, relOf(root, p)),
  stat: (root, [p]) => statBeneath(root, relOf(root, p)),
  walk: (root, [p, limit]) => walkBeneath(root, relOf(root, p), Number(limit)),
  exec: (_root, [request], id) => exec(request, id),
}

export function cancelOp(id: unknown): void {
  cancelExec(id)
}

function errorOf(e: unknown): { code: string; message: string } {
  const code = e !== null && typeof e === 'object' && 'code' in e && typeof e.code === 'string' && PASS.has(e.code) ? e.code : 'EIO'
  const message = e instanceof Error ? e.message : String(e)
  return { code, message: message.slice(0, OP_ERROR_TEXT_MAX) }
}

export function serveOp(msg: unknown, send: (m: FromRunner) => void): void {
  const id = own(msg, 'id')
  const name = own(msg, 'op')
  if (typeof id !== 'number') return
  const op = typeof name === 'string' && Object.hasOwn(ops, name) ? ops[name] : undefined
  if (!op) return send({ type: 'opResult', id, ok: false, error: { code: 'EIO', message: 'unknown op' } })
  const args = own(msg, 'args')
  // Started inside a promise: a synchronous throw of an op is its failure, like a rejection.
  const started = new PromiseCtor((resolve) => resolve(op(String(own(msg, 'root')), Array.isArray(args) ? args : [], id)))
  ReflectApply(promiseThen, started, [
    (value: unknown) => send({ type: 'opResult', id, ok: true, value: value === undefined ? null : value }),
    (e: unknown) => send({ type: 'opResult', id, ok: false, error: errorOf(e) }),
  ])
}
