/**
 * What a direct run changed: `WorkspaceOps` that pass every operation to the backend's ops and remember,
 * per path, what was there before the run first touched it. `bash` can change anything, so around each
 * command the tree is snapshotted (lstat of every entry) and compared. At the end each remembered path
 * is compared with what is there now.
 */
import { lstatSync, type Stats } from 'node:fs'
import { lstat, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { relBelow } from '../paths.js'
import type { EntryType, ExecRequest, ExecResult, FileSignature, WorkspaceOps } from '../ops.js'
import { compareWalkPaths } from './view.js'
import { digest } from './upper-files.js'
import { entryTypeOf } from '../beneath.js'

/** What an entry was: its type, and for files a signature (size, mtime, inode) and maybe a content hash. */
interface Before {
  type: EntryType | undefined
  sig?: string
  hash?: string
}

export interface TrackedChange {
  rel: string
  change: 'created' | 'modified' | 'deleted'
  kind: EntryType
}

function sigOf(st: FileSignature): string {
  return `${st.size}:${st.mtimeMs}:${st.ino}:${st.mode}`
}

function signed(st: Stats): Before {
  return { type: entryTypeOf(st), sig: sigOf(st) }
}

async function entryNow(abs: string): Promise<Before> {
  try {
    return signed(await lstat(abs))
  } catch {
    return { type: undefined }
  }
}

/**
 * `entryNow`, synchronously: one lstat, which a batch makes once per file it touches (and again at the
 * end), costs less than a thread-pool round trip — and a missing entry returns undefined instead of
 * building an Error.
 */
function entryNowSync(abs: string): Before {
  try {
    const st = lstatSync(abs, { throwIfNoEntry: false })
    return st ? signed(st) : { type: undefined }
  } catch {
    return { type: undefined }
  }
}

/** Every entry under `root` (not into symlinks) with its signature. */
export async function snapshotTree(root: string): Promise<Map<string, Before>> {
  const out = new Map<string, Before>()
  const visit = async (dir: string, prefix: string): Promise<void> => {
    const dirents = await readdir(dir, { withFileTypes: true }).catch(() => [])
    await Promise.all(
      dirents.map(async (d) => {
        const rel = prefix === '' ? d.name : `${prefix}/${d.name}`
        const abs = join(dir, d.name)
        const now = await entryNow(abs)
        out.set(rel, now)
        if (now.type === 'dir') await visit(abs, rel)
      }),
    )
  }
  await visit(root, '')
  return out
}

export class ChangeTracker {
  private readonly before = new Map<string, Before>()
  /** Hash of the content last written by a tool, per path. */
  private readonly written = new Map<string, string>()
  /** Files the run read (for the summary's "unchanged"). */
  readonly read = new Set<string>()
  readonly ops: WorkspaceOps
  /** The tree before the run, when the program itself can write (Docker: node:fs on the mounted workspace). */
  private readonly start: Promise<Map<string, Before>> | undefined

  constructor(
    private readonly root: string,
    base: WorkspaceOps,
    options: { wholeRun?: boolean } = {},
  ) {
    this.start = options.wholeRun ? snapshotTree(root) : undefined
    const rel = (p: string): string => relBelow(root, p)
    this.ops = {
      readFile: async (path, maxBytes) => {
        // The host's ops say what they read (the descriptor's fstat): no second stat of the name, which a
        // swap between the read and the stat could make describe another file.
        const signedRead = base.readFileSigned ? await base.readFileSigned(path, maxBytes) : undefined
        const text = signedRead ? signedRead.text : await base.readFile(path, maxBytes)
        const r = rel(path)
        this.read.add(r)
        if (!this.before.has(r))
          this.before.set(r, { type: 'file', hash: digest(text), sig: signedRead ? sigOf(signedRead.sig) : entryNowSync(path).sig })
        return text
      },
      writeFile: async (path, content) => {
        await this.remember(path, true)
        await base.writeFile(path, content)
        this.written.set(rel(path), digest(content))
      },
      mkdir: async (path) => {
        await this.remember(path, true)
        await base.mkdir(path)
      },
      remove: async (path, recursive) => {
        await this.remember(path, false)
        const r = rel(path)
        if (this.before.get(r)?.type === 'dir') {
          const walked = await base.walk(path, Number.MAX_SAFE_INTEGER).catch(() => ({ entries: [] }))
          for (const e of walked.entries) if (!this.before.has(`${r}/${e.path}`)) this.before.set(`${r}/${e.path}`, { type: e.type })
        }
        await base.remove(path, recursive)
      },
      readdir: (path) => base.readdir(path),
      stat: (path) => base.stat(path),
      walk: (path, limit) => base.walk(path, limit),
      exec: (request, signal) => this.exec(base, request, signal),
    }
  }

  /** Records what `path` was (and, for a create, each missing folder above it) before the first change. */
  private async remember(path: string, creates: boolean): Promise<void> {
    let r = relBelow(this.root, path)
    for (;;) {
      if (r === '' || r.startsWith('..')) return
      const known = this.before.get(r)
      if (known === undefined) {
        const now = entryNowSync(join(this.root, r))
        this.before.set(r, now)
        if (now.type !== undefined || !creates) return
      } else if (known.type !== undefined || !creates) return
      r = r.includes('/') ? r.slice(0, r.lastIndexOf('/')) : ''
    }
  }

  private async exec(base: WorkspaceOps, request: ExecRequest, signal?: AbortSignal): Promise<ExecResult> {
    const pre = await snapshotTree(this.root)
    try {
      return await base.exec(request, signal)
    } finally {
      const post = await snapshotTree(this.root)
      for (const [r, b] of pre) {
        const a = post.get(r)
        if ((a === undefined || a.sig !== b.sig || a.type !== b.type) && !this.before.has(r)) this.before.set(r, b)
        if (a !== undefined && a.sig !== b.sig) this.written.delete(r)
      }
      for (const r of post.keys()) if (!pre.has(r) && !this.before.has(r)) this.before.set(r, { type: undefined })
    }
  }

  /** Resolves once the whole-run snapshot is taken (the run must not start before). */
  async ready(): Promise<void> {
    await this.start
  }

  /** Every remembered path compared with the tree now; `unchanged` are files rewritten with their own bytes. */
  async changes(): Promise<{ changes: TrackedChange[]; unchanged: string[] }> {
    if (this.start) {
      const pre = await this.start
      const post = await snapshotTree(this.root)
      for (const [r, b] of pre) if (!this.before.has(r) && post.get(r)?.sig !== b.sig) this.before.set(r, b)
      for (const r of post.keys()) if (!pre.has(r) && !this.before.has(r)) this.before.set(r, { type: undefined })
    }
    const changes: TrackedChange[] = []
    const unchanged: string[] = []
    for (const [r, b] of this.before) {
      const now = entryNowSync(join(this.root, r))
      if (b.type === undefined && now.type === undefined) continue
      if (b.type === undefined) changes.push({ rel: r, change: 'created', kind: now.type! })
      else if (now.type === undefined) changes.push({ rel: r, change: 'deleted', kind: b.type })
      else if (b.type === 'dir' && now.type === 'dir') continue
      else if (b.type !== now.type) changes.push({ rel: r, change: 'modified', kind: now.type })
      else if (b.hash !== undefined && this.written.get(r) === b.hash && now.sig !== undefined) {
        if (this.written.has(r)) unchanged.push(r)
      } else if (b.sig !== now.sig || this.written.has(r)) changes.push({ rel: r, change: 'modified', kind: now.type })
    }
    changes.sort((a, b) => compareWalkPaths(a.rel, b.rel))
    return { changes, unchanged: unchanged.sort() }
  }
}
