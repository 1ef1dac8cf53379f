/**
 * The host-prepare gate's bounds and the lexical pieces of its scan (sdk/host-prep-scan.ts): literals read to
 * their end as Babel's tokenizer reads them, and the words that decide a `/` or end a statement. Each reader
 * refuses (a reason) what it cannot read as Babel would.
 */

/** The gate's bounds (re-exported by sdk/host-prep-gate.ts; the attack test generates texts just under each). */
export const HOST_PREP_LIMITS = {
  /**
   * Characters of the source. Every pass is at least linear, and the quadratic families grow with it.
   * The realistic corpus (test/programs, examples) is ≤ 4.2 KB, its p99 ~0.7 KB.
   */
  maxChars: 4096,
  /** `<` characters (each may start a try that runs to its span's end: the `a0 < a1 < …` quadratic). */
  maxAngles: 24,
  /** `):` pairs (the arrow return-type try of `c ? (a) : …`); same reason. */
  maxColonTries: 24,
  /** Brackets (and `${`) open at once, strings and comments included where they cannot be told apart. */
  maxDepth: 32,
  /** Tries inside the span of another try (the exponential families). */
  maxNestedTries: 2,
  /**
   * Operators, `.`, `=>` and closed groups in one run at one level (a run ends at `,`, `;` or a new
   * statement): nesting without brackets (`x => x => …`, `!!!…`, `a = b = …`, `a ? b : c ? …`, `f()()…`).
   * Babel recurses once per step; past ~200 oxc's depth gate sends the text to esbuild anyway, and 600
   * curried arrows cost 30 ms of the host's CPU (128: ~3 ms).
   */
  maxChain: 128,
  /**
   * Characters weighed by the parses their place may get (Scan.weight): what nesting and count alone do
   * not bound — a 3.7 KB array inside three nested tries (`<T>(<T>(a < ([1, 1, …]))`) was 36 ms.
   */
  maxWork: 16384,
} as const

/** A nested try's re-parse factor, rounded up from the worst measured (`a < ((x = ` nesting: ~4×). */
export const TRY_FACTOR = 4

export interface Group {
  /** `(`, `[`, `{`, or '${' (a template's substitution). */
  open: string
  /** Tries whose span holds this group's contents. */
  base: number
  /** Tries at this group's level since its last `;` (they hold any group opened later at this level). */
  seen: number
  /** Of those, the `<` at an expression's start (arrow, then type assertion: it re-parses its own level too). */
  sameLevel: number
  /** Steps of the current run at this level (maxChain). */
  chain: number
  /** `seen`/`sameLevel` before this level's first `):` try: an arrow's return type ends at its `=>`. */
  colonMark?: { seen: number; sameLevel: number }
  /** After `function` at this level, until its body's `{`: type parameters, parameters' types, return type are parsed directly, not tried. */
  header?: boolean
  /** A `(` after `if`/`while`/`for`/`with`: a `/` after its `)` starts a regular expression. */
  control: boolean
  /** A `(` that may be a parenthesised expression or an arrow's parameters (not a call's, a declaration's). */
  arrowable: boolean
  /** A `{`/`[` right after a `(`, and the `{`/`[` inside it: what a function type's first parameter would be. */
  pattern?: { root: number; doubled: boolean }
}

export type Last =
  | 'start'
  | 'value'
  | 'word'
  | 'ambiguous'
  | 'op'
  | 'open-paren'
  | 'dot'
  | 'close-paren'
  | 'close-control'
  | 'close-brace'
  | 'angle-close'
  | 'incdec'

export const OPEN = new Set(['(', '[', '{'])
export const CLOSE: Record<string, string> = { ')': '(', ']': '[', '}': '{' }
/** After these reserved words (not after a `.`) a `/` starts a regular expression. */
export const BEFORE_REGEX = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'extends',
])
/** Words that may be a name or a keyword (`of / 2` vs `yield /re/`): a `/` after one is refused. */
export const AMBIGUOUS_WORDS = new Set(['of', 'yield', 'await', 'let', 'async', 'get', 'set', 'static', 'as', 'satisfies', 'type'])
/** Words that may continue an expression or a type onto the next line (any other name there starts a statement). */
export const CONTINUING = new Set([
  'in',
  'instanceof',
  'as',
  'satisfies',
  'extends',
  'is',
  'of',
  'implements',
  'keyof',
  'typeof',
  'infer',
  'readonly',
  'unique',
  'asserts',
])
/** Words after which a type goes on (`keyof⏎T`): a line ending in one ended nothing. */
export const TYPE_PREFIX = new Set(['keyof', 'typeof', 'infer', 'readonly', 'unique', 'asserts', 'is', 'new', 'abstract', 'declare'])
export const CONTROL_WORDS = new Set(['if', 'while', 'for', 'with'])

/** After a regular expression literal starting at `at` (its `/`), or why it is refused. */
export function regexEnd(t: string, at: number): number | string {
  let inClass = false
  for (let i = at + 1; i < t.length; i++) {
    const c = t[i]
    if (c === '\n') return 'regex line'
    if (c === '\\') i++
    else if (c === '[') inClass = true
    else if (c === ']') inClass = false
    else if (c === '/' && !inClass) {
      i++
      while (i < t.length && /\w/.test(t[i]!)) i++
      return i
    }
  }
  return 'unclosed regex'
}

/** After a string literal starting at `at` (its quote `q`), or why it is refused. */
export function quotedEnd(t: string, at: number, q: string): number | string {
  for (let i = at + 1; i < t.length; i++) {
    const c = t[i]
    if (c === '\n') return 'string line'
    if (c === '\\') i++
    else if (c === q) return i + 1
  }
  return 'unclosed string'
}

/** A template's text from `at`: where it ends (after its backtick) or its next `${` starts, or why it is refused. */
export function templateTextEnd(t: string, at: number): { at: number; substitution: boolean } | string {
  for (let i = at; i < t.length; i++) {
    const c = t[i]
    if (c === '\\') i++
    else if (c === '`') return { at: i + 1, substitution: false }
    else if (c === '$' && t[i + 1] === '{') return { at: i, substitution: true }
  }
  return 'unclosed template'
}

/** Identifier characters (and `\` of an escape, and any non-space beyond ASCII); a number is read as one too. */
export function isWordChar(c: string): boolean {
  return /[\w$\\]/.test(c) || (c > '\x7f' && !/\s/.test(c))
}

export function startsWord(text: string, at: number, word: string): boolean {
  return text.startsWith(word, at) && !isWordChar(text[at + word.length] ?? ' ')
}
