/**
 * Whether the REPL's input so far is a whole program or needs another line (the `...` prompt). The host
 * never loads TypeScript, so this is a small scanner, not a parser: it follows strings, template literals
 * (and the code inside `${…}`), comments and regular-expression literals, keeps a stack of open brackets,
 * and remembers the last token. Input needs more when a bracket, a template, a block comment or a
 * backslash-continued string is still open, or when the last token is an operator that wants an operand.
 * Anything else is sent as it is: a real syntax error is the checker's to report, with its hints.
 */

/**
 * Tokens after which a program cannot end: binary and prefix operators, `,`, `.`, `=>` and the like. Not
 * `>`, `>>`, `>>>` (they close type arguments: `type Rows = Array<Map<string, number>>`) nor `!` (a non-null
 * assertion: `const row = rows.get(id)!`).
 */
const WANTS_OPERAND = new Set([
  ...['=', '+=', '-=', '*=', '/=', '%=', '**=', '&=', '|=', '^=', '<<=', '>>=', '>>>=', '&&=', '||=', '??='],
  ...['+', '-', '*', '/', '%', '**', '==', '===', '!=', '!==', '<', '<=', '>=', '<<'],
  ...['&&', '||', '??', '&', '|', '^', '~', '?', ':', ',', '.', '?.', '=>', '...'],
])

/** Keywords after which a `/` starts a regular expression, not a division. */
const BEFORE_EXPRESSION = new Set([
  ...['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else'],
  ...['yield', 'await', 'extends'],
])

/** Punctuators that end a value: a `/` after them divides. */
const AFTER_VALUE = new Set([')', ']', '}', '++', '--'])

/** Longest first, so `>>>=` is one token and not `>>` `>=`. */
const PUNCTUATORS = [
  ...['>>>=', '...', '===', '!==', '**=', '<<=', '>>=', '>>>', '&&=', '||=', '??='],
  ...['=>', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^='],
  ...['**', '<<', '>>'],
]

const ID_START = /[A-Za-z_$#\u0080-\uffff]/
const ID_PART = /[\w$\u0080-\uffff]/
const OPEN: Record<string, string> = { '(': ')', '[': ']', '{': '}' }

/** True when `text` cannot end here and the REPL should ask for another line. */
export function needsMoreInput(text: string): boolean {
  // What encloses the scanner: brackets, and `${` (code inside a template, back to the template at its `}`).
  const stack: string[] = []
  /** The last significant token; '' at the start. Decides regex-or-division and "trailing operator". */
  let last = ''
  let lastKind: 'start' | 'word' | 'value' | 'punct' = 'start'
  let i = 0
  const n = text.length

  /** Scans a template's text from after its backtick (or a `}` ending `${…}`); false if it is still open. */
  const template = (): 'closed' | 'open' | 'substitution' => {
    while (i < n) {
      const c = text[i]!
      if (c === '\\') i += 2
      else if (c === '`') {
        i++
        return 'closed'
      } else if (c === '$' && text[i + 1] === '{') {
        i += 2
        return 'substitution'
      } else i++
    }
    return 'open'
  }

  const afterTemplate = (state: 'closed' | 'open' | 'substitution'): boolean => {
    if (state === 'open') return false
    if (state === 'substitution') {
      stack.push('${')
      last = '${'
      lastKind = 'punct'
    } else {
      last = '`'
      lastKind = 'value'
    }
    return true
  }

  while (i < n) {
    const c = text[i]!
    const next = text[i + 1]
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v' || c === '\u00a0' || c === '\ufeff') {
      i++
      continue
    }
    if (c === '/' && next === '/') {
      while (i < n && text[i] !== '\n') i++
      continue
    }
    if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2)
      if (end < 0) return true
      i = end + 2
      continue
    }
    if (c === '"' || c === "'") {
      i++
      while (i < n && text[i] !== c && text[i] !== '\n') {
        if (text[i] === '\\') {
          // A backslash at the end of the input continues the string on the next line.
          if (i + 1 >= n || (text[i + 1] === '\r' && i + 2 >= n)) return true
          i += text[i + 1] === '\r' && text[i + 2] === '\n' ? 3 : 2
        } else i++
      }
      i++ // the closing quote (or the newline of an unterminated string: the checker reports it)
      last = c
      lastKind = 'value'
      continue
    }
    if (c === '`') {
      i++
      if (!afterTemplate(template())) return true
      continue
    }
    if (c === '/') {
      const regexAllowed =
        lastKind === 'start' || (lastKind === 'punct' && !AFTER_VALUE.has(last)) || (lastKind === 'word' && BEFORE_EXPRESSION.has(last))
      if (regexAllowed) {
        i++
        let inClass = false
        while (i < n && text[i] !== '\n') {
          const r = text[i]!
          if (r === '\\') i += 2
          else if (r === '[') (inClass = true), i++
          else if (r === ']') (inClass = false), i++
          else if (r === '/' && !inClass) break
          else i++
        }
        i++
        while (i < n && ID_PART.test(text[i]!)) i++ // flags
        last = '/regex/'
        lastKind = 'value'
        continue
      }
    }
    if (ID_START.test(c) || (c === '\\' && next === 'u')) {
      const start = i
      i++
      while (i < n && (ID_PART.test(text[i]!) || text[i] === '\\')) i++
      last = text.slice(start, i)
      lastKind = 'word'
      continue
    }
    if (/\d/.test(c) || (c === '.' && next !== undefined && /\d/.test(next))) {
      const hex = c === '0' && (next === 'x' || next === 'X')
      i++
      while (i < n && /[\w.]/.test(text[i]!)) {
        // An exponent's sign belongs to the number: 1e+5.
        if (!hex && (text[i] === 'e' || text[i] === 'E') && (text[i + 1] === '+' || text[i + 1] === '-')) i += 2
        else i++
      }
      last = '0'
      lastKind = 'value'
      continue
    }
    if (c in OPEN) {
      stack.push(c)
      last = c
      lastKind = 'punct'
      i++
      continue
    }
    if (c === ')' || c === ']' || c === '}') {
      const top = stack[stack.length - 1]
      if (c === '}' && top === '${') {
        stack.pop()
        i++
        if (!afterTemplate(template())) return true
        continue
      }
      // An unmatched closer is a syntax error: the input is complete, and the checker says what is wrong.
      if (top === undefined || OPEN[top] !== c) return false
      stack.pop()
      last = c
      lastKind = 'punct'
      i++
      continue
    }
    const punct = PUNCTUATORS.find((p) => text.startsWith(p, i)) ?? c
    i += punct.length
    last = punct
    lastKind = 'punct'
  }
  if (stack.length > 0) return true
  return lastKind === 'punct' && WANTS_OPERAND.has(last)
}
