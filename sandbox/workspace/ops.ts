/**
 * The workspace seam: the few primitive operations the workspace tools are built from.
 *
 * The host implementation (`host-ops.ts`) uses node:fs and bubblewrap. The Docker backend offers a
 * container-side implementation as `ctx.services.workspace`; the tools then call it instead. Either way
 * the policy hook has already run on the host, and the ops re-check at the point of use (a path may have
 * been swapped for a symlink since).
 *
 * Rules every implementation keeps, so the interface can cross a stdio protocol:
 * - arguments and results are JSON (the optional AbortSignal of `exec` becomes a cancel message);
 * - paths are absolute and already resolved inside the workspace root the ops were built for;
 * - a failure rejects with an Error carrying an errno-style `code` (see `WorkspaceErrorCode`), which the
 *   tools pass through unchanged.
 */

/** Codes the ops reject with (and the tools built on them fail with). */
export type WorkspaceErrorCode =
  | 'ENOENT' // missing file or folder
  | 'EEXIST' // mkdir over a file
  | 'EISDIR' // read/write of a folder
  | 'ENOTDIR' // readdir of a file, or a file where a folder was needed
  | 'ENOTEMPTY' // remove of a non-empty folder without `recursive`
  | 'EFBIG' // a file over the read cap
  | 'EILSEQ' // binary content (NUL bytes or invalid UTF-8): not returned as text
  | 'EACCES' // the path resolved outside the workspace at the point of use
  | 'EROFS' // the path is read-only at the point of use
  | 'EPERM' // the operation is forbidden (exec off, removing the root)
  | 'EINVAL' // a bad argument (e.g. edit_file's old_string matched zero or several times)
  | 'E2BIG' // a glob that matches or scans too much
  | 'ETIMEDOUT' // exec: the command ran past its timeout and was killed with its children
  | 'SANDBOX_UNAVAILABLE' // exec: the confinement could not start; the command never ran
  | 'ECANCELED' // exec: aborted by the caller's signal
  | 'ENOSPC' // the disk (or the container's tmpfs) is full
  | 'EDQUOT' // a disk quota is exhausted
  | 'EAGAIN' // too many persistent shells open at once (Minimal mode's maxShells)
  | 'EIO' // anything else

/** What a workspace is; the ops are built for one. JSON. */
export interface WorkspaceConfig {
  /** Real path (symlinks resolved) of the workspace root. */
  root: string
  /** Real paths of read-only folders or files inside the root (the root itself for a read-only workspace). */
  readOnly: string[]
  /** Whether `exec` may run at all. */
  exec: boolean
  /** Whether `exec` commands get the network. */
  network: boolean
  /** Bytes of the private /tmp an `exec` command gets (host backend; default 64 MiB). */
  tmpBytes?: number
  /** Processes (threads included) an `exec` command may have at once (host backend; default 256). */
  maxProcesses?: number
  /** Direct writes replace files atomically (temp + rename) instead of in place (host backend; default false). */
  atomicWrites?: boolean
}

export type EntryType = 'file' | 'dir' | 'symlink' | 'other'

export interface DirEntry {
  name: string
  type: EntryType
  /** Bytes (0 for folders). */
  size: number
}

export interface FileInfo {
  type: EntryType
  size: number
  /** Milliseconds since the epoch. */
  mtimeMs: number
  /** Permission bits, e.g. 0o644. */
  mode: number
}

/** One entry of a walk, relative to the walked folder, `/`-separated. */
export interface WalkEntry {
  path: string
  type: EntryType
}

export interface WalkResult {
  entries: WalkEntry[]
  /** True when the walk stopped at `limit` entries. */
  truncated: boolean
}

export interface ExecRequest {
  command: string
  /** Absolute working folder inside the root. */
  cwd: string
  timeoutMs: number
  /** Bytes kept per stream; the rest is dropped and `truncated` set. */
  maxOutputBytes: number
}

export interface ExecResult {
  stdout: string
  stderr: string
  /** The command's exit code; null when it was killed by a signal. */
  exitCode: number | null
  /** The signal that killed it, if any (e.g. SIGKILL at the timeout). */
  signal: string | null
  timedOut: boolean
  truncated: boolean
  /**
   * Set when the confined command was refused by the kernel, matched in this backend's own dialect
   * only (bwrap: "Read-only file system" -> EROFS, "Permission denied" -> EACCES,
   * "Operation not permitted" -> EPERM).
   */
  denied?: 'EROFS' | 'EACCES' | 'EPERM'
  /** The stderr line that showed the denial, for the report. */
  deniedMessage?: string
}

/** What a read saw of the file it read: the fstat of the descriptor it read through. */
export interface FileSignature {
  size: number
  mtimeMs: number
  ino: number
  mode: number
}

export interface WorkspaceOps {
  /** UTF-8 text of a file. Rejects EFBIG over `maxBytes`, EILSEQ for binary content, EISDIR for a folder. */
  readFile(path: string, maxBytes: number): Promise<string>
  /**
   * `readFile`, also telling what it read (optional: the host's ops have it, so a change tracker needs no
   * second stat of each file it was told about).
   */
  readFileSigned?(path: string, maxBytes: number): Promise<{ text: string; sig: FileSignature }>
  /** Creates or replaces a file with UTF-8 text, creating parent folders. */
  writeFile(path: string, content: string): Promise<void>
  /** Creates a folder and its parents; fine if it exists as a folder, EEXIST if it is a file. */
  mkdir(path: string): Promise<void>
  /** Removes a file, a symlink (never its target) or a folder (ENOTEMPTY unless `recursive`). */
  remove(path: string, recursive: boolean): Promise<void>
  /** A folder's entries, sorted by name; symlinks reported as such, not followed. */
  readdir(path: string): Promise<DirEntry[]>
  /** Does not follow a final symlink. */
  stat(path: string): Promise<FileInfo>
  /** Every entry under `path`, depth first, sorted; never descends into symlinks; stops at `limit`. */
  walk(path: string, limit: number): Promise<WalkResult>
  /** Runs a shell command confined to the workspace (never unconfined). Non-zero exit is not a failure. */
  exec(request: ExecRequest, signal?: AbortSignal): Promise<ExecResult>
}

/** The key under `ctx.services` where a backend puts its `WorkspaceOps`. */
export const WORKSPACE_SERVICE = 'workspace'

/** The errno string of a Node fs error, if any. */
export function errnoOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined
}

/** A file over the read cap: EFBIG, naming the way to read it instead. */
export function tooBig(at: string, size: number, maxBytes: number): WorkspaceError {
  return new WorkspaceError(
    'EFBIG',
    `${at} is ${size} bytes, over the ${maxBytes}-byte read limit; read it with bash (head, sed -n) instead`,
  )
}

/** An Error with an errno-style `code`, the one way ops and tools fail. */
export class WorkspaceError extends Error {
  readonly code: WorkspaceErrorCode
  constructor(code: WorkspaceErrorCode, message: string) {
    super(message)
    this.name = 'WorkspaceError'
    this.code = code
  }
}
