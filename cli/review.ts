/**
 * `--review`: each change of an atomic run that ended ok, shown as a diff on the terminal, then
 * "apply / skip / all / quit" (the ast-grep and comby habit); one key, no Enter needed.
 */
import type { ReviewAnswer, ReviewChange } from '../runtime/changes/run-changes.js'
import { quotePath } from '../vocabulary/visible-text.js'
import { bold, shownDiff } from './colour.js'

const KEYS: Record<string, ReviewAnswer> = { y: 'apply', a: 'all', n: 'skip', s: 'skip', q: 'quit', '\u0003': 'quit', '\u0004': 'quit' }

function readKey(input: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve) => {
    const onData = (chunk: Buffer): void => {
      input.off('data', onData)
      input.off('end', onEnd)
      resolve(chunk.toString('utf8').slice(0, 1).toLowerCase())
    }
    const onEnd = (): void => {
      input.off('data', onData)
      resolve('q')
    }
    input.on('data', onData)
    input.once('end', onEnd)
  })
}

/** The review as the terminal answers it, and the paths the person skipped (for the summary). */
export type TerminalReview = ReviewChange & { close(): void; readonly skipped: ReadonlySet<string> }

export interface ReviewOptions {
  colour: boolean
  /** Called before the first question: the live status line stops, so it cannot draw over the question. */
  beforeAsking?: () => void
}

export function terminalReview(input: NodeJS.ReadStream, out: NodeJS.WritableStream, options: ReviewOptions): TerminalReview {
  let raw = false
  let quit = false
  const skipped = new Set<string>()
  const review = (async (change, index, total) => {
    // "quit" skips the rest: answered here without asking, so every skipped path is known.
    if (quit) {
      skipped.add(change.path)
      return 'skip'
    }
    if (!raw && input.isTTY) {
      options.beforeAsking?.()
      input.setRawMode(true)
      raw = true
    }
    input.resume()
    // The diff's content and paths are shown escaped and quoted: a file cannot hide a line or forge a header.
    out.write(`\n${shownDiff(change.diff ?? '', options.colour)}`)
    for (;;) {
      out.write(
        bold(`(${index + 1}/${total}) ${change.change} ${quotePath(change.path)} — apply? [y]es [n]o [a]ll [q]uit `, options.colour),
      )
      const key = await readKey(input)
      const answer = KEYS[key]
      out.write(`${answer ?? key}\n`)
      if (answer) {
        input.pause()
        if (answer === 'quit') quit = true
        if (answer === 'skip' || answer === 'quit') {
          skipped.add(change.path)
          return 'skip'
        }
        return answer
      }
    }
  }) as ReviewChange & { close(): void; skipped: ReadonlySet<string> }
  review.skipped = skipped
  review.close = () => {
    if (raw) input.setRawMode(false)
    input.pause()
  }
  return review
}
