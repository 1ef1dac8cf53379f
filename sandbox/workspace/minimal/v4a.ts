/**
 * OpenAI's V4A patch format, as its `apply_patch` tool and Codex write it:
 *
 *   *** Begin Patch
 *   *** Add File: path        then `+` lines
 *   *** Update File: path     optionally `*** Move to: new/path`, then hunks: `@@ [anchor line]`, lines
 *                             starting ' ' (context), '-' (removed), '+' (added), `*** End of File`
 *   *** Delete File: path
 *   *** End Patch
 *
 * Parsing and applying are pure: text in, new texts or an error value out, so a patch is judged whole
 * before anything is written. Context is matched exactly, then ignoring trailing, then all surrounding
 * whitespace (the fuzz OpenAI's reference applier allows).
 */

export interface Hunk {
  anchor?: string
  old: string[]
  new: string[]
  /** For each line of `new`, the index in `old` of the context line it repeats (-1 for an added line). */
  kept: number[]
  eof: boolean
}

export type PatchOp =
  | { type: 'add'; path: string; content: string }
  | { type: 'delete'; path: string }
  | { type: 'update'; path: string; moveTo?: string; hunks: Hunk[] }

export type Result<T> = { ok: true; value: T } | { ok: false; message: string }

const BEGIN = '*** Begin Patch'
const END = '*** End Patch'
const ADD = '*** Add File: '
const DELETE = '*** Delete File: '
const UPDATE = '*** Update File: '
const MOVE = '*** Move to: '
const EOF_MARK = '*** End of File'

const fail = (message: string): { ok: false; message: string } => ({ ok: false, message })

export function parsePatch(text: string): Result<PatchOp[]> {
  const lines = text.replace(/\r\n/g, '\n').trim().split('\n')
  if (lines[0]?.trim() !== BEGIN) return fail(`a V4A patch starts with "${BEGIN}" on its first line`)
  if (lines.at(-1)?.trim() !== END) return fail(`a V4A patch ends with "${END}" on its last line`)
  const ops: PatchOp[] = []
  let i = 1
  while (i < lines.length - 1) {
    const line = lines[i]!
    if (line.startsWith(ADD)) {
      const body: string[] = []
      for (i++; i < lines.length - 1 && !lines[i]!.startsWith('*** '); i++) {
        if (!lines[i]!.startsWith('+'))
          return fail(`line ${i + 1}: every line of an added file starts with "+", got ${JSON.stringify(lines[i])}`)
        body.push(lines[i]!.slice(1))
      }
      ops.push({ type: 'add', path: line.slice(ADD.length).trim(), content: body.length ? `${body.join('\n')}\n` : '' })
    } else if (line.startsWith(DELETE)) {
      ops.push({ type: 'delete', path: line.slice(DELETE.length).trim() })
      i++
    } else if (line.startsWith(UPDATE)) {
      const parsed = parseUpdate(lines, i)
      if (!parsed.ok) return parsed
      ops.push(parsed.value.op)
      i = parsed.value.next
    } else {
      return fail(`line ${i + 1}: expected "${ADD}", "${UPDATE}" or "${DELETE}", got ${JSON.stringify(line)}`)
    }
  }
  if (!ops.length) return fail('the patch names no file')
  return { ok: true, value: ops }
}

function parseUpdate(lines: string[], start: number): Result<{ op: PatchOp; next: number }> {
  const path = lines[start]!.slice(UPDATE.length).trim()
  let i = start + 1
  let moveTo: string | undefined
  if (lines[i]?.startsWith(MOVE)) moveTo = lines[i++]!.slice(MOVE.length).trim()
  const hunks: Hunk[] = []
  let hunk: Hunk | undefined
  for (; i < lines.length - 1; i++) {
    const line = lines[i]!
    if (line.startsWith('*** ') && line.trim() !== EOF_MARK) break
    if (line.trim() === EOF_MARK) {
      if (hunk) hunk.eof = true
      continue
    }
    if (line.startsWith('@@')) {
      const anchor = line.slice(2).trim()
      hunks.push((hunk = { old: [], new: [], kept: [], eof: false, ...(anchor ? { anchor } : {}) }))
      continue
    }
    if (!hunk) hunks.push((hunk = { old: [], new: [], kept: [], eof: false }))
    const mark = line[0] ?? ' '
    const body = line.slice(1)
    if (mark === ' ' || line === '') {
      hunk.kept.push(hunk.old.length)
      hunk.old.push(body)
      hunk.new.push(body)
    } else if (mark === '-') hunk.old.push(body)
    else if (mark === '+') {
      hunk.kept.push(-1)
      hunk.new.push(body)
    } else return fail(`line ${i + 1} of the update of ${path}: a hunk line starts with " ", "-" or "+", got ${JSON.stringify(line)}`)
  }
  if (!hunks.length && moveTo === undefined) return fail(`the update of ${path} has no hunk`)
  return { ok: true, value: { op: { type: 'update', path, ...(moveTo !== undefined ? { moveTo } : {}), hunks }, next: i } }
}

const MATCHERS: ReadonlyArray<(s: string) => string> = [(s) => s, (s) => s.trimEnd(), (s) => s.trim()]

/** Where `seq` occurs in `lines` at or after `from` (at the end first when `eof`); -1 if nowhere. */
function findSeq(lines: readonly string[], seq: readonly string[], from: number, eof: boolean): number {
  for (const norm of MATCHERS) {
    const want = seq.map(norm)
    const fits = (at: number) => want.every((w, k) => norm(lines[at + k]!) === w)
    if (eof && lines.length - seq.length >= from && fits(lines.length - seq.length)) return lines.length - seq.length
    for (let at = from; at + seq.length <= lines.length; at++) if (fits(at)) return at
  }
  return -1
}

/** The file's new text after `hunks`, or which context was not found. */
export function applyHunks(path: string, text: string, hunks: readonly Hunk[]): Result<string> {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  let cursor = 0
  for (const [n, h] of hunks.entries()) {
    if (h.anchor !== undefined) {
      const at = findSeq(lines, [h.anchor], cursor, false)
      if (at === -1) return fail(`${path}: hunk ${n + 1}: the context line @@ ${h.anchor} was not found; nothing of this patch was written`)
      cursor = at + 1
    }
    const at = h.old.length === 0 ? (h.eof ? lines.length : cursor) : findSeq(lines, h.old, cursor, h.eof)
    if (at === -1) {
      const shown = h.old.map((l) => `  ${l}`).join('\n')
      return fail(
        `${path}: hunk ${n + 1}: these lines were not found${cursor ? ` after line ${cursor}` : ''}:\n${shown}\nnothing of this patch was written; view the file and send the hunk again with its current text`,
      )
    }
    // Context lines keep the file's own text (a fuzzy match must not rewrite their whitespace).
    lines.splice(at, h.old.length, ...h.new.map((l, k) => (h.kept[k]! >= 0 ? lines[at + h.kept[k]!]! : l)))
    cursor = at + h.new.length
  }
  return { ok: true, value: lines.length ? `${lines.join('\n')}\n` : '' }
}
