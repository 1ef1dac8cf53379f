/**
 * The one denial table: how a kernel refusal shows, as an errno code of a Node call or as a line a command
 * printed on stderr, and which denial code the model is told. The host's bubblewrap (`bwrap.ts`, its staged
 * overlay) and the container runner (`sandbox/docker/runner/`) both read it, so a refusal observed in one
 * backend is named the same in the other. Node built-ins only: the runner bundles it.
 */

/** The codes a denial is reported with (DESIGN's error vocabulary). */
export type DenialCode = 'EROFS' | 'EACCES' | 'EPERM'

/**
 * Errno codes of a refused Node call. EBUSY is the kernel refusing to rename or remove a mount point: a
 * read-only part of the workspace (bound again read-only) or one of its parents.
 */
const ERRNO_DENIALS: ReadonlyMap<string, DenialCode> = new Map([
  ['EROFS', 'EROFS'],
  ['EBUSY', 'EROFS'],
  ['EACCES', 'EACCES'],
  ['EPERM', 'EPERM'],
])

/** The same refusals in the words of a shell and coreutils (glibc's strerror), checked in this order. */
const STDERR_DENIALS: ReadonlyArray<readonly [RegExp, DenialCode]> = [
  [/read-only file system/i, 'EROFS'],
  [/device or resource busy/i, 'EROFS'],
  [/permission denied/i, 'EACCES'],
  [/operation not permitted/i, 'EPERM'],
]

/** The denial code of a Node error's errno code, or undefined when it is not a refusal. */
export function denialOfErrno(code: unknown): DenialCode | undefined {
  return typeof code === 'string' ? ERRNO_DENIALS.get(code) : undefined
}

/** The first stderr line that shows a refusal, with its code; the table's order decides between lines. */
export function denialInStderr(stderr: string): { code: DenialCode; line: string } | undefined {
  const lines = stderr.split('\n')
  for (const [re, code] of STDERR_DENIALS) {
    const line = lines.find((l) => re.test(l))
    if (line !== undefined) return { code, line: line.trim() }
  }
  return undefined
}
