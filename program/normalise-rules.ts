/**
 * The rule data of normalising a program (program/normalise.ts): the names it recognises, and the text steps
 * taken before TypeScript parses the program (fences, line ends, a `#!` line).
 */

/** A list of names written as a paragraph: white space between them. */
export function words(text: string): string[] {
  return text.trim().split(/\s+/)
}

/** The names the sandbox gives every program; an import of only these is dropped. */
export const PROGRAM_GLOBALS: readonly string[] = ['tools', 'ToolCallError', 'console']

/** Function names models use for an entry point they then forget to call. */
export const MAIN_NAMES: ReadonlySet<string> = new Set(words('main run start execute program solve task handler go script'))

/**
 * Calls whose value is noise as an answer (`list.push(x)` is a length, `map.set(k, v)` the whole map):
 * a last statement calling one of these is not turned into the return value.
 */
export const MUTATOR_METHODS: ReadonlySet<string> = new Set(
  words('push unshift set add delete clear splice forEach log info warn error debug'),
)

/** Node's modules by their bare names (`import fs from 'fs'`), besides any `node:` specifier. */
export const NODE_BUILTINS: ReadonlySet<string> = new Set(
  words(`
  assert buffer child_process crypto events fs fs/promises os path process stream string_decoder timers
  timers/promises url util zlib readline http https net
`),
)

/**
 * A model often answers in markdown: keep the code of every fenced block (ts, js or unlabelled) and blank
 * every other line, so line numbers stay the model's own. A line starting with ``` cannot be valid
 * TypeScript (a backtick inside a template literal must be escaped), so this never changes a real program.
 */
export function stripFences(text: string): string {
  const lines = text.split('\n')
  // Backtick fences only: a line like `~~~x` is valid JavaScript (three bitwise NOTs).
  const fence = /^\s{0,3}(```+)\s*([\w+-]*)\s*$/
  if (!lines.some((l) => fence.test(l))) return text
  const codeLangs = new Set(['', 'ts', 'typescript', 'js', 'javascript', 'tsx', 'jsx', 'mjs', 'cjs', 'mts'])
  const out: string[] = []
  let inside: { marker: string; keep: boolean } | undefined
  let sawBlock = false
  for (const line of lines) {
    const m = fence.exec(line)
    if (!inside && m) {
      inside = { marker: m[1]!, keep: codeLangs.has(m[2]!.toLowerCase()) }
      sawBlock = true
      out.push('')
    } else if (inside && m && m[1]!.startsWith(inside.marker[0]!) && m[1]!.length >= inside.marker.length && m[2] === '') {
      inside = undefined
      out.push('')
    } else out.push(inside?.keep ? line : '')
  }
  // An opening fence with no closing one: the model was cut off; keep what followed the fence.
  if (!sawBlock) return text
  return out.join('\n')
}

/**
 * The text steps both normalisers take before parsing: a byte-order mark dropped, line endings made `\n`,
 * markdown fences stripped, a `#!` line blanked (its line kept). Each change is said in `changes`.
 */
export function cleanProgramText(source: string, changes: string[]): string {
  let text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source
  text = text.replace(/\r\n?/g, '\n')
  const unfenced = stripFences(text)
  if (unfenced !== text) changes.push('markdown fences removed')
  text = unfenced
  if (text.startsWith('#!')) {
    text = text.slice(text.indexOf('\n') === -1 ? text.length : text.indexOf('\n'))
    changes.push('#! line removed')
  }
  return text
}
