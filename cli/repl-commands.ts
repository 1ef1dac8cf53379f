/**
 * The REPL's dot commands and what it prints after a run. The observation is the model's view of a run; a
 * person at the REPL has already seen its console output live, so that leading section is not printed twice.
 */
import type { LogEntry, RunResult } from '../vocabulary/types.js'

export const REPL_HELP = `.sdk     print the declarations the next input is checked against (the tools' SDK and this session's bindings)
.reset   forget every binding: the next input starts in a fresh realm
.break   drop the unfinished input (so does Ctrl-C)
.help    this list
.exit    leave (so does Ctrl-D, or Ctrl-C twice at an empty prompt)
Tab completes the session's bindings, tools.NAME and the commands.
An input that is not finished (an open bracket or template, a trailing operator) continues on a "..." line.
Ctrl-C while a program runs cancels it; the session keeps what it assigned before.`

export type DotCommand = 'sdk' | 'reset' | 'break' | 'help' | 'exit'
const COMMANDS: readonly DotCommand[] = ['sdk', 'reset', 'break', 'help', 'exit']

/**
 * The command a line names: `.sdk`, `.exit` … ; `unknown` for another `.word`; undefined for code (`.5 * 2`
 * is an expression, not a command).
 */
export function dotCommand(line: string): DotCommand | 'unknown' | undefined {
  const m = /^\s*\.([A-Za-z]\w*)\s*$/.exec(line)
  if (!m) return undefined
  const name = m[1] as DotCommand
  return COMMANDS.includes(name) ? name : 'unknown'
}

/** `.sdk`: the tools' declarations, then the session's bindings so far. */
export function sdkText(tools: string, bindings: string): string {
  const parts = [tools.trimEnd()]
  parts.push(bindings.trim() ? `// This session's bindings:\n${bindings.trimEnd()}` : '// This session has no bindings yet.')
  return parts.join('\n\n') + '\n'
}

const NOTHING_TO_REPORT = '(the program finished with no output and no return value; end it with `return <value>` to report a result)'

function renderLog(entry: LogEntry): string {
  return entry.level === 'log' || entry.level === 'info' ? entry.text : `${entry.level}: ${entry.text}`
}

/**
 * What the REPL prints after a run: the observation, less the console output already shown live (when the
 * observation starts with it, uncut) and less the note a model gets when a run reports nothing (a person
 * who declared a binding sees the prompt come back).
 */
export function shownObservation(result: RunResult, consoleShown: boolean): string {
  let text = result.observation
  if (consoleShown && result.logs.length) {
    const logged = result.logs.map(renderLog).join('\n')
    if (text === logged) text = ''
    else if (text.startsWith(logged + '\n\n')) text = text.slice(logged.length + 2)
  }
  return text === NOTHING_TO_REPORT ? '' : text
}

/** The names a session's declarations bind (`declare const rows: …`, `class Cache …`), for Tab completion. */
function boundNames(declarations: string): string[] {
  const names = new Set<string>()
  for (const m of declarations.matchAll(/^(?:declare\s+)?(?:const|let|var|function\*?|class|enum|namespace)\s+([A-Za-z_$][\w$]*)/gm))
    names.add(m[1]!)
  return [...names]
}

/**
 * Tab completion: `tools.` and a prefix → the tools' names; a dot command at the start of the line; else the
 * session's bindings. readline's shape: the candidates, and the text they complete.
 */
export function completions(line: string, tools: readonly string[], declarations: string): [string[], string] {
  if (/^\s*\.\w*$/.test(line)) {
    const typed = line.trim()
    return [COMMANDS.map((c) => `.${c}`).filter((c) => c.startsWith(typed)), typed]
  }
  const member = /\btools\.([\w$]*)$/.exec(line)
  if (member) return [tools.filter((t) => t.startsWith(member[1]!)), member[1]!]
  const word = /(?:^|[^\w$.])([A-Za-z_$][\w$]*)$/.exec(line)?.[1]
  if (word === undefined) return [[], '']
  return [[...boundNames(declarations), 'tools'].filter((n) => n.startsWith(word)).sort(), word]
}
