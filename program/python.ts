/**
 * Python written by mistake, recognised wherever it starts: a first line such as
 * `orders = await tools.list_orders(…)` is valid JavaScript, so the program is judged by every line. Asked
 * only of a program that does not parse, so a valid program is never called Python.
 */

/** Lines no TypeScript program has, each with its weight: 2 is Python beyond doubt; 1 needs one more sign. */
const PYTHON_LINES: readonly (readonly [RegExp, number])[] = [
  // def name(args): / async def …
  [/^\s*(async\s+)?def\s+\w+\s*\(.*\)\s*(->\s*[^:]+)?:\s*(#.*)?$/, 2],
  [/^\s*elif\s.*:\s*(#.*)?$/, 2],
  [/^\s*(else|try|finally)\s*:\s*(#.*)?$/, 2],
  [/^\s*except(\s+[\w.]+(\s+as\s+\w+)?)?\s*:\s*(#.*)?$/, 2],
  [/^\s*from\s+[\w.]+\s+import\s+[\w*]/, 2],
  // f-strings: an `f` right before a string with a {placeholder}
  [/(^|[\s(=,[])f"[^"\n]*\{[^}\n]+\}[^"\n]*"/, 2],
  [/(^|[\s(=,[])f'[^'\n]*\{[^}\n]+\}[^'\n]*'/, 2],
  // for x in xs: / for k, v in d.items():
  [/^\s*for\s+[\w\s,()]+\s+in\s+.+:\s*(#.*)?$/, 1],
  // if x: / while x: / with open(p) as f: — a block opened by a colon, not a brace
  [/^\s*(if|while|with)\s+[^{]+:\s*(#.*)?$/, 1],
  [/^\s*import\s+[\w.]+(\s+as\s+\w+)?(\s*,\s*[\w.]+)*\s*$/, 1],
]

/** Words and calls a TypeScript program rarely has (outside strings): one more sign beside a Python line. */
const PYTHON_HINTS: readonly RegExp[] = [
  /^\s*print\s*\(/,
  /\b(None|True|False)\b/,
  /\b(len|range|enumerate|isinstance)\s*\(/,
  /\.append\s*\(/,
  /\s(and|or|not|is not|not in)\s/,
  /^\s*#\s*\S/,
]

/**
 * The first line that is Python (1-based) and its text, or undefined when the program does not read as
 * Python: at least one Python line, and a weight of 2 in all (a block opened by a colon and indented
 * counts one more).
 */
export function pythonLine(source: string): { line: number; text: string } | undefined {
  const lines = source.split(/\r?\n/)
  let first: number | undefined
  let strong = false
  let weight = 0
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const own = PYTHON_LINES.reduce((w, [re, n]) => (re.test(line) ? Math.max(w, n) : w), 0) + (indentedAfterColon(lines, i) ? 1 : 0)
    const hint = PYTHON_HINTS.some((re) => re.test(withoutStrings(line))) ? 1 : 0
    if (own > 0) strong = true
    if (own + hint > 0) first ??= i
    weight += own + hint
  }
  if (first === undefined || !strong || weight < 2) return undefined
  return { line: first + 1, text: lines[first]!.trim() }
}

/** `x = y:` followed by a deeper line with no brace anywhere near: Python's block by indentation. */
function indentedAfterColon(lines: readonly string[], i: number): boolean {
  const line = lines[i]!
  const next = lines[i + 1]
  if (
    next === undefined ||
    !/:\s*$/.test(line) ||
    /[{}[(,?]/.test(line.replace(/:\s*$/, '').slice(-1)) ||
    /\bcase\b|\bdefault\b/.test(line)
  )
    return false
  return indent(next) > indent(line) && !/[{}]/.test(line + next)
}

function indent(line: string): number {
  return /^\s*/.exec(line)![0].length
}

function withoutStrings(line: string): string {
  return line.replace(/"(\\.|[^"\\])*"|'(\\.|[^'\\])*'|`(\\.|[^`\\])*`/g, '""')
}

/** What the model reads: the line that gave it away, and the fix. */
export function pythonMessage(at: { line: number; text: string }): string {
  return `This is Python (line ${at.line}: \`${at.text.length > 60 ? `${at.text.slice(0, 59)}…` : at.text}\`); write TypeScript — the body of an async function: \`const r = await tools.name({ ... })\`, \`for (const x of xs) { … }\`, \`if (x) { … }\`, \`console.log(…)\`, \`return value\`; null/true/false, not None/True/False.`
}
