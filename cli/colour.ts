/**
 * `--color=auto|always|never` and `NO_COLOR` (no-color.org): colour only on a terminal, never when NO_COLOR
 * is set to anything, and the flag over both. A dumb terminal gets none either.
 */
import { visible } from '../vocabulary/visible-text.js'
import { UsageError } from './usage-error.js'

export type ColourMode = 'auto' | 'always' | 'never'

export function colourMode(flag: string | undefined): ColourMode {
  if (flag === undefined) return 'auto'
  if (flag === 'auto' || flag === 'always' || flag === 'never') return flag
  throw new UsageError(`--color must be auto, always or never, got "${flag}"`)
}

/** Whether to colour what goes to `stream`. */
export function useColour(mode: ColourMode, stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (mode !== 'auto') return mode === 'always'
  return stream.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb'
}

const paint = (code: string) => (text: string) => `\x1b[${code}m${text}\x1b[0m`
const PAINT = { bold: paint('1'), added: paint('32'), removed: paint('31'), hunk: paint('36') }

/**
 * A unified diff for a person: each line shown through `visible` first (content cannot act on the terminal),
 * then coloured when `colour` is on.
 */
export function shownDiff(diff: string, colour: boolean): string {
  return diff
    .split('\n')
    .map((raw) => {
      const l = visible(raw, { multiline: true })
      if (!colour) return l
      if (l.startsWith('+++') || l.startsWith('---')) return PAINT.bold(l)
      if (l.startsWith('+')) return PAINT.added(l)
      if (l.startsWith('-')) return PAINT.removed(l)
      return l.startsWith('@@') ? PAINT.hunk(l) : l
    })
    .join('\n')
}

export const bold = (text: string, colour: boolean): string => (colour ? PAINT.bold(text) : text)
