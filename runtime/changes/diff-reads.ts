/**
 * What a staged run's diffs may read from disk: `maxDiffBytes` (--max-diff-bytes) for all its files
 * together. Before a file is read its size is known (lstat), so a file that does not fit what is left, or
 * a sparse one (a `truncate -s 1500M` costs its writer nothing and a reader all of its
 * size), is never read: its diff is one line saying what it is, as git's "Binary files … differ" is. A
 * program must not make the host's memory grow by what it claims, only by what it writes.
 */
import { lstatSync, type Stats } from 'node:fs'
import { isSparse } from '../../sandbox/workspace/staging/sparse-copy.js'
import { bytesOf } from '../../sandbox/workspace/staging/staged-changes.js'

export type Side = { bytes: Buffer | undefined } | { skipped: string }

export class DiffReads {
  readonly #max: number
  #left: number

  constructor(maxBytes: number) {
    this.#max = maxBytes
    this.#left = maxBytes
  }

  /** A file's bytes (undefined: it is not there), or why it is not read. */
  async read(path: string): Promise<Side> {
    let st: Stats | undefined
    try {
      st = lstatSync(path, { throwIfNoEntry: false })
    } catch {
      return { bytes: undefined }
    }
    if (st === undefined) return { bytes: undefined }
    if (isSparse(st)) return { skipped: `${st.size} bytes, sparse` }
    if (st.size > this.#left) return { skipped: `${st.size} bytes` }
    this.#left -= st.size
    try {
      return { bytes: await bytesOf(path, st.size) }
    } catch {
      return { bytes: undefined }
    }
  }

  /** Bytes already in memory (a staged write): nothing is read, they take their share all the same. */
  held(bytes: Buffer): Side {
    if (bytes.length > this.#left) return { skipped: `${bytes.length} bytes` }
    this.#left -= bytes.length
    return { bytes }
  }

  /** The one line shown instead of a diff, naming the limit. */
  summary(from: string, to: string, before: Side, after: Side): string {
    const what = ['skipped' in before ? `${from}: ${before.skipped}` : '', 'skipped' in after ? `${to}: ${after.skipped}` : ''].filter(
      Boolean,
    )
    return `Files ${from} and ${to} differ; not read (${what.join('; ')}): a run's diffs read at most ${this.#max} bytes (--max-diff-bytes)\n`
  }
}
