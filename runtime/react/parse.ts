/**
 * Finds the actions in a model's ReAct text, in the classic forms: the paper's `Action 1: Search[Front Row]`
 * and `Finish[answer]`, and LangChain's `Action: search` / `Action Input: {"query": "…"}` / `Final Answer:`.
 * Pure text work: which tool a name means and what its arguments become is resolve.ts's.
 */

/** `react`: only `Tool[arg]` / `Finish[answer]`; `langchain`: only `Action:` / `Action Input:` / `Final Answer:`; `auto`: both. */
export type ReactFormat = 'auto' | 'react' | 'langchain'

export interface ParsedAction {
  /** The tool's name as the model wrote it. */
  tool: string
  /** The bracket's content or the Action Input's text; undefined when no Action Input followed. */
  input: string | undefined
  form: 'bracket' | 'langchain'
}

export type ParsedTurn =
  | { kind: 'actions'; actions: ParsedAction[] }
  | { kind: 'final'; answer: string }
  /** Nothing to run: `why` says what was found instead. */
  | { kind: 'none'; why: string }

const LABEL = /^(thought(?:\s+\d+)?|action(?:\s+\d+)?|action input|observation(?:\s+\d+)?|final answer)\s*:/i
const FENCE = /^\s*(```|~~~)[\w-]*\s*$/
const BRACKET = /^([A-Za-z_][\w-]{0,63})\s*\[([\s\S]*)\]\s*$/

/**
 * Reads one turn. A model that wrote its own `Observation:` is cut there: what follows it was not observed.
 * A line that is only `Name[…]`, with no `Action:` label, counts when it is `Finish` or `isTool(Name)`.
 */
export function parseTurn(text: string, format: ReactFormat = 'auto', isTool: (name: string) => boolean = () => false): ParsedTurn {
  const lines = ownLines(text)
  const actions: ParsedAction[] = []
  let final: string | undefined
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    const label = LABEL.exec(line)?.[1]?.toLowerCase()
    const rest = label ? line.slice(line.indexOf(':') + 1).trim() : line
    if (label?.startsWith('final answer') && format !== 'react') {
      final = [rest, ...lines.slice(i + 1)].join('\n').trim()
      break
    }
    const bracket = format !== 'langchain' && (label?.startsWith('action') || !label) ? BRACKET.exec(stripTicks(rest)) : null
    if (bracket && (label || /^finish$/i.test(bracket[1]!) || isTool(bracket[1]!))) {
      if (/^finish$/i.test(bracket[1]!)) {
        final = bracket[2]!.trim()
        break
      }
      actions.push({ tool: bracket[1]!, input: bracket[2]!, form: 'bracket' })
      continue
    }
    if (label?.startsWith('action') && label !== 'action input' && format !== 'react') {
      const input = actionInput(lines, i + 1)
      actions.push({ tool: stripTicks(rest), input: input?.text, form: 'langchain' })
      if (input) i = input.end - 1
    }
  }
  if (final !== undefined && actions.length)
    return { kind: 'none', why: 'the text has both an action and a final answer; give the final answer after the observation' }
  if (final !== undefined) return { kind: 'final', answer: final }
  if (actions.length) return { kind: 'actions', actions }
  return { kind: 'none', why: 'no action was found' }
}

/** The model's own lines: code fences dropped, and nothing from its first `Observation:` on. */
function ownLines(text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  const observed = lines.findIndex((l) => /^\s*observation(\s+\d+)?\s*:/i.test(l))
  return (observed === -1 ? lines : lines.slice(0, observed)).filter((l) => !FENCE.test(l))
}

/** `Action Input:` right after an `Action:` line (blank lines between are fine), up to the next label. */
function actionInput(lines: readonly string[], from: number): { text: string; end: number } | undefined {
  let i = from
  while (i < lines.length && lines[i]!.trim() === '') i++
  const first = lines[i]?.trim()
  if (first === undefined || !/^action input\s*:/i.test(first)) return undefined
  const body = [first.slice(first.indexOf(':') + 1)]
  let end = i + 1
  while (end < lines.length && !LABEL.test(lines[end]!.trim())) body.push(lines[end++]!)
  return { text: body.join('\n').trim(), end }
}

/** Drops the backticks, quotes and bold stars around a name; a loop, as a regex anchored at the end backtracks on a long run of them. */
function stripTicks(s: string): string {
  const marks = '`\'"*'
  let from = 0
  let to = s.length
  while (from < to && marks.includes(s[from]!)) from++
  while (to > from && marks.includes(s[to - 1]!)) to--
  return s.slice(from, to).trim()
}
