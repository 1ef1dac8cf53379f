/**
 * The command line's parser: node:util's parseArgs, with the errors said in codeact's own words (the flag,
 * what it wants, the closest known flag, where the list is) before parseArgs could word them.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import type { CommandSpec } from './commands.js'
import { flagDoc } from './help.js'
import { UsageError } from './usage-error.js'

/** The nearest known flag to a mistyped one, if it is near enough to be what was meant. */
function nearest(name: string, known: string[]): string | undefined {
  let best: [string, number] | undefined
  for (const k of known) {
    const d = distance(name, k)
    if (d <= (k.length >= 4 ? 2 : 1) && (!best || d < best[1])) best = [k, d]
  }
  return best?.[0] ?? known.find((k) => k.startsWith(name) && name.length >= 3)
}

function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    row = next
  }
  return row[b.length]!
}

/** Checks `args` against the command's flags; the first problem is a UsageError in codeact's words. */
function check(spec: CommandSpec, args: string[], takesOperands: boolean): void {
  const { tokens } = parseArgs({ args, options: spec.options, strict: false, allowPositionals: true, tokens: true })
  const known = Object.keys(spec.options)
  const listed = `codeact ${spec.name} --help lists them`
  for (const t of tokens) {
    if (t.kind === 'positional' && !takesOperands) throw new UsageError(`codeact ${spec.name} takes no arguments, got "${t.value}"`)
    if (t.kind !== 'option') continue
    const option = spec.options[t.name as keyof typeof spec.options]
    if (!option) {
      const near = t.rawName.startsWith('--') ? nearest(t.name, known) : undefined
      throw new UsageError(`codeact ${spec.name} has no option ${t.rawName}${near ? ` (did you mean --${near}?)` : ''}; ${listed}`)
    }
    if (option.type === 'boolean' && t.inlineValue) throw new UsageError(`${t.rawName} takes no value (got "${t.value}")`)
    const missing = t.value === undefined || (!t.inlineValue && t.value.length > 1 && t.value.startsWith('-'))
    if (option.type === 'string' && missing) {
      const wants = flagDoc(spec, t.name)?.value
      throw new UsageError(
        `${t.rawName} needs a value${wants ? ` (${wants})` : ''}; a value that starts with "-" is written ${t.rawName}=VALUE`,
      )
    }
  }
}

/** The command's values and operands; with -h/--help anywhere, `values.help` is set and nothing else is checked. */
type Parsed<S extends CommandSpec> = ReturnType<
  typeof parseArgs<{
    args: string[]
    options: S['options'] & NonNullable<ParseArgsConfig['options']>
    strict: true
    allowPositionals: boolean
  }>
>

export function parseCommand<S extends CommandSpec>(spec: S, args: string[], takesOperands = spec.operands !== ''): Parsed<S> {
  const options = spec.options as S['options'] & NonNullable<ParseArgsConfig['options']>
  const strict = () => parseArgs({ args, options, strict: true, allowPositionals: takesOperands })
  if (args.some((a) => a === '--help' || a === '-h')) {
    const loose = parseArgs({ args, options, strict: false, allowPositionals: true })
    return { ...loose, values: { help: true } } as unknown as Parsed<S>
  }
  check(spec, args, takesOperands)
  return strict()
}
