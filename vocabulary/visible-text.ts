/**
 * Text shown to a person, made unable to act on their terminal or hide part of itself: the one escaping
 * function every terminal write goes through (console lines, tool names, arguments, paths, diffs, errors,
 * approval questions), and git's path quoting for diff headers and file lists.
 *
 * A terminal obeys C0/C1 controls and escape sequences (erase the screen, move the cursor, retitle the
 * window), a carriage return overwrites the line, bidi overrides reorder what follows, and format characters,
 * odd spaces and fillers draw nothing at all. Each is shown as an escape (`\x1b`, `\r`, `\u202e`) instead:
 * visible, and inert.
 */

/** Characters a terminal acts on or draws as nothing (tab and newline are handled by the caller's mode). */
const HIDDEN =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\p{Cn}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u3164\u2800\uffa0\p{Variation_Selector}]|\u115f|\u1160/gu

const NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r', '\x1b': '\\x1b' }

function escapeOne(c: string): string {
  const named = NAMED[c]
  if (named) return named
  const code = c.codePointAt(0)!
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`
  return code < 0x10000 ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`
}

export interface VisibleOptions {
  /** Keep newlines and tabs as they are (console output, diff bodies); otherwise they are escaped too. */
  multiline?: boolean
  /** Runs of this many spaces or more are shown as `«N spaces»` (a padded command hides its tail). */
  spaceRun?: number
}

/** `text` with every control, escape sequence, bidi override and invisible character shown escaped. */
export function visible(text: string, options: VisibleOptions = {}): string {
  let out = text.replace(HIDDEN, (c) => (options.multiline && (c === '\n' || c === '\t') ? c : escapeOne(c)))
  if (options.spaceRun !== undefined) {
    const run = new RegExp(` {${options.spaceRun},}`, 'g')
    out = out.replace(run, (s) => `«${s.length} spaces»`)
  }
  return out
}

/** Letters of another script inside an ASCII word (`pаypal` with a Cyrillic а) are shown as code points. */
export function markLookAlikes(text: string): string {
  return text.replace(/[\p{L}\p{M}\p{N}]+/gu, (word) =>
    /[A-Za-z]/.test(word) && /\P{ASCII}/u.test(word) ? word.replace(/\P{ASCII}/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`) : word,
  )
}

const GIT_ESCAPES: Record<number, string> = { 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r', 34: '"', 92: '\\' }

/**
 * A path as git prints it with core.quotePath on (its default): unchanged when it is plain ASCII without
 * `"` or `\`, else in double quotes with C escapes and every other byte outside printable ASCII in octal.
 */
export function quotePath(path: string): string {
  const bytes = Buffer.from(path, 'utf8')
  if (bytes.every((b) => b >= 0x20 && b < 0x7f && b !== 34 && b !== 92)) return path
  let out = '"'
  for (const b of bytes) {
    const named = GIT_ESCAPES[b]
    if (named) out += `\\${named}`
    else if (b < 0x20 || b >= 0x7f) out += `\\${b.toString(8).padStart(3, '0')}`
    else out += String.fromCharCode(b)
  }
  return out + '"'
}
