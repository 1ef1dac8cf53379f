/**
 * Which program texts the host's own thread may prepare (Babel's parse and normalise, the wrapper's shape
 * proof, oxc behind its depth gate, acorn's proof of the output): DESIGN invariant 5 says the host's thread
 * never waits on a program, and the checker's thread has a budget and is terminated past it — the host's
 * thread cannot be. So a text is prepared here only if this gate bounds everything that work can cost; any
 * other text goes to the checker's thread, which is always there. One linear pass, no parser; when unsure,
 * refuse. test/security/host-prepare-gate.test.ts is the attack corpus (every admitted text's whole
 * prepare stays under a CPU ceiling) and the property that realistic programs are admitted.
 *
 * Why it is not enough to bound the length: Babel's TypeScript plugin parses some spans twice — a *try* that
 * is thrown away when it fails (`a < b` tries type arguments; `<T>x` tries a generic arrow, then a type
 * assertion; `(a) : T` after a `?` tries an arrow's return type). A try inside the span of another try is
 * parsed again each time the outer one is, so nested tries cost ~2–4× per level: `<T>(` sixteen deep is 88
 * bytes and 2.4 s, `a < ((x = ` eight deep 280 bytes and 14 s. Tries one after another are only quadratic
 * (`a0 < a1 < …`, 400 of them in 2.7 KB: 0.5 s).
 */
import { cleanProgramText } from './program-rules.js'

/** The gate's bounds, exported for the attack test (which generates texts just under each). */
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
const TRY_FACTOR = 4

const OPEN = new Set(['(', '[', '{'])
const CLOSE: Record<string, string> = { ')': '(', ']': '[', '}': '{' }
/** After these reserved words (not after a `.`) a `/` starts a regular expression. */
const BEFORE_REGEX = new Set(['return', 'typeof', 'instanceof', 'in', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'extends'])
/** Words that may be a name or a keyword (`of / 2` vs `yield /re/`): a `/` after one is refused. */
const AMBIGUOUS_WORDS = new Set(['of', 'yield', 'await', 'let', 'async', 'get', 'set', 'static', 'as', 'satisfies', 'type'])
/** Words that may continue an expression or a type onto the next line (any other name there starts a statement). */
const CONTINUING = new Set([
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
const TYPE_PREFIX = new Set(['keyof', 'typeof', 'infer', 'readonly', 'unique', 'asserts', 'is', 'new', 'abstract', 'declare'])
const CONTROL_WORDS = new Set(['if', 'while', 'for', 'with'])

interface Group {
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

/** Whether the host's thread may prepare `source` (else the checker's thread does). Linear in its length. */
export function hostPrepareAdmits(source: string): boolean {
  return hostPrepareRefusal(source) === undefined
}

/** Why the gate refuses `source` (which bound, or which text this scan cannot read as Babel would), or undefined. */
export function hostPrepareRefusal(source: string): string | undefined {
  if (source.length > HOST_PREP_LIMITS.maxChars) return 'length'
  // U+2028/U+2029 end a line comment and a line to Babel; refusing them keeps this scan's lines Babel's.
  if (/[\u2028\u2029]/.test(source)) return 'line separator'
  // What Babel reads: fences stripped, line ends made \n (a fence's backticks would otherwise read as templates here).
  const text = cleanProgramText(source, [])
  if (text.length > HOST_PREP_LIMITS.maxChars) return 'length'
  const scan = new Scan(text)
  return scan.run() ? undefined : scan.why
}

type Last =
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

class Scan {
  private i = 0
  private readonly stack: Group[] = [{ open: '', base: 0, seen: 0, sameLevel: 0, chain: 0, control: false, arrowable: false }]
  private angles = 0
  private colonTries = 0
  /** The last significant token's kind (regex or division; expression start or not). */
  private last: Last = 'start'
  private lastWord = ''
  private wordBefore = ''
  private lineBreak = false
  /** Characters of tokens, each weighed by how many times Babel may parse it (maxWork). */
  private work = 0
  /** The last token was a conditional's `?` or a `:` (of a conditional, or not: counted either way). */
  private branch = false
  /** The last `)` closed an arrowable `(`. */
  private closedArrowable = false
  why = ''

  constructor(private readonly text: string) {}

  run(): boolean {
    const t = this.text
    while (this.i < t.length) {
      const c = t[this.i]!
      if (c === '\n' || c === ' ' || c === '\t' || c === '\r' || c === '\v' || c === '\f' || (c > '\x7f' && /\s/.test(c))) {
        if (c === '\n') this.lineBreak = true
        this.i++
      } else if (c === '/' && t[this.i + 1] === '/') this.skipLine()
      else if (c === '/' && t[this.i + 1] === '*') {
        const end = t.indexOf('*/', this.i + 2)
        if (end < 0) return this.refuse('unclosed comment')
        if (t.slice(this.i, end).includes('\n')) this.lineBreak = true
        this.i = end + 2
      } else {
        const from = this.i
        const weight = this.weight()
        if (!this.token(c)) return false
        this.lineBreak = false
        // Only tokens weigh: blanks and comments are skipped by every parse alike.
        this.work += (this.i - from) * weight
        if (this.work > HOST_PREP_LIMITS.maxWork) return this.refuse('work')
      }
    }
    return this.stack.length === 1 || this.refuse('unbalanced')
  }

  private refuse(why: string): false {
    this.why = why
    return false
  }

  private get top(): Group {
    return this.stack[this.stack.length - 1]!
  }

  private token(c: string): boolean {
    const t = this.text
    // A conditional's branch that starts with `(`, `<` or `async` is tried whole (Babel's restricted arrow
    // return types: up to three parses of the branch), so it holds its own level like an assertion does.
    const branch = this.branch
    this.branch = false
    if (branch && (c === '(' || c === '<' || startsWord(t, this.i, 'async')) && !this.tried(true)) return false
    if (c === '"' || c === "'") return this.quoted(c)
    if (c === '`') return this.template()
    if (c === '/') return this.slash()
    if (isWordChar(c)) return this.word()
    if (c === '[' && this.top.open === '{' && !this.patternExpression()) return false
    if (OPEN.has(c)) return this.open(c, c === '(' && this.afterControlWord())
    if (c in CLOSE) return this.close(c)
    this.i++
    const g = this.top
    if (c === ';' || c === ',') {
      g.chain = 0
      g.colonMark = undefined
      // No try's span crosses a `;` at its own level (types, arrows and assertions all end before it); an
      // arrow's, an assertion's, a branch's span (an assignment expression) ends at a `,` too.
      if (c === ';') this.endStatement()
      else {
        g.seen -= g.sameLevel
        g.sameLevel = 0
      }
    } else if (!this.step()) return false
    if (c === '<') {
      if (++this.angles > HOST_PREP_LIMITS.maxAngles) return this.refuse('angles')
      const exprStart = this.last !== 'value' && this.last !== 'word' && this.last !== 'close-paren'
      if (!branch && !g.header && !this.tried(exprStart)) return false
    } else if (c === ':' && (this.last === 'close-paren' || this.last === 'close-control') && this.closedArrowable && !g.header) {
      if (++this.colonTries > HOST_PREP_LIMITS.maxColonTries) return this.refuse('colon tries')
      g.colonMark ??= { seen: g.seen, sameLevel: g.sameLevel }
      if (!this.tried(false)) return false
    } else if (c === '=' && t[this.i] !== '>' && t[this.i] !== '=' && !this.patternExpression()) return false
    if ((c === '+' || c === '-') && t[this.i] === c) {
      this.i++
      this.last = 'incdec'
    } else if (c === '=' && t[this.i] === '>') {
      this.i++
      this.last = 'op'
      // An arrow's body that starts with `(`, `<` or `async` is tried like a conditional's branch (Babel
      // restricts its arrow return types the same way: `<T>((a): T => ((a): T => (…` re-parses each).
      this.branch = true
      // The return type's try (and its `<`, read as a type) ended here.
      if (g.colonMark) {
        g.seen = g.colonMark.seen + (g.sameLevel - g.colonMark.sameLevel)
        g.colonMark = undefined
      }
    } else if (c === '?' && (t[this.i] === '?' || t[this.i] === '.')) {
      this.i++
      this.last = 'op'
    } else if (c === '?' || c === ':') {
      this.branch = true
      this.last = 'op'
    } else this.last = c === '>' ? 'angle-close' : c === '.' ? 'dot' : 'op'
    return true
  }

  /**
   * How many times Babel may parse a token here: each try holding this level (an ancestor's, or an
   * assertion's or branch's at this level) multiplies it (by 2–4: measured), each type-argument try at this
   * level adds one parse of the rest of its span.
   */
  private weight(): number {
    const g = this.top
    return TRY_FACTOR ** (g.base + g.sameLevel) * (1 + g.seen - g.sameLevel)
  }

  /** One more step in this level's run. */
  private step(): boolean {
    return ++this.top.chain <= HOST_PREP_LIMITS.maxChain || this.refuse('chain')
  }

  /** A statement ends at this level: no try's span, no run goes on past it. */
  private endStatement(): void {
    const g = this.top
    g.seen = 0
    g.sameLevel = 0
    g.chain = 0
    g.colonMark = undefined
    g.header = false
  }

  /** A try starts here: its nesting is the tries holding its level, and an expression-start `<` holds its own level too. */
  private tried(holdsOwnLevel: boolean): boolean {
    const g = this.top
    if (g.base + g.sameLevel > HOST_PREP_LIMITS.maxNestedTries) return this.refuse('nested tries')
    g.seen++
    if (holdsOwnLevel) g.sameLevel++
    return true
  }

  private open(c: string, control: boolean): boolean {
    if (this.stack.length > HOST_PREP_LIMITS.maxDepth) return this.refuse('depth')
    const g = this.top
    const pattern =
      c !== '{' && c !== '['
        ? undefined
        : this.last === 'open-paren'
          ? { root: this.stack.length, doubled: false }
          : g.open !== '('
            ? g.pattern
            : undefined
    // After a name, `)`, `]` or a string, a `(` is a call's (or a declaration's parameters): no arrow try at its `):`.
    const arrowable = c === '(' && this.last !== 'word' && this.last !== 'close-paren' && this.last !== 'value'
    if (c === '{') g.header = false
    this.stack.push({
      open: c,
      base: g.base + g.seen,
      seen: 0,
      sameLevel: 0,
      chain: 0,
      control,
      arrowable,
      ...(pattern ? { pattern } : {}),
    })
    this.i += c === '${' ? 2 : 1
    this.last = c === '(' ? 'open-paren' : 'op'
    return true
  }

  /**
   * A default (`=`) or a computed key (`[` in `{`) inside a `({`/`([`: in a type, Babel's look-ahead for a
   * function type parses that first parameter whole, then parses it again (`x: ({a = (0 as ({a = …`
   * sixteen deep, 328 bytes: 0.8 s). Its groups, from the one after `(` inwards, are held by one more try.
   */
  private patternExpression(): boolean {
    const p = this.top.pattern
    if (!p || p.doubled) return true
    p.doubled = true
    for (let d = p.root; d < this.stack.length; d++) {
      const g = this.stack[d]!
      g.base++
      if (g.base > HOST_PREP_LIMITS.maxNestedTries) return this.refuse('nested tries')
    }
    return true
  }

  private close(c: string): boolean {
    const g = this.top
    if (this.stack.length === 1 || (g.open !== CLOSE[c] && !(c === '}' && g.open === '${'))) return this.refuse('unbalanced')
    this.stack.pop()
    this.i++
    if (!this.step()) return false
    if (g.open === '${') return this.templateRest()
    this.last = c === ')' ? (g.control ? 'close-control' : 'close-paren') : c === ']' ? 'value' : 'close-brace'
    this.closedArrowable = g.arrowable
    return true
  }

  private word(): boolean {
    const t = this.text
    const start = this.i
    while (this.i < t.length && isWordChar(t[this.i]!)) this.i++
    // A number's `.5`/`e+3` parts come as further tokens: harmless (a `.` or `+` is an operator either way).
    const w = t.slice(start, this.i)
    const ended =
      this.last === 'value' ||
      (this.last === 'word' && !TYPE_PREFIX.has(this.lastWord)) ||
      this.last === 'close-paren' ||
      this.last === 'close-brace'
    if (this.lineBreak && !CONTINUING.has(w) && ended) {
      // `a < b⏎foo(…)`: a line that ended an expression, then a name: no type, arrow, assertion or branch
      // goes on into it (the name cannot continue one; a statement follows, by ASI).
      this.endStatement()
    }
    if (w === 'function' && this.last !== 'dot') this.top.header = true
    if (this.last !== 'dot' && (BEFORE_REGEX.has(w) || AMBIGUOUS_WORDS.has(w)) && !this.step()) return false
    const property = this.last === 'dot'
    this.last = property ? 'word' : BEFORE_REGEX.has(w) ? 'op' : AMBIGUOUS_WORDS.has(w) ? 'ambiguous' : 'word'
    this.wordBefore = this.lastWord
    this.lastWord = w
    return true
  }

  private slash(): boolean {
    // Division after a value; a regular expression after an operator, `(`, a keyword, a control `)`.
    // Where the two cannot be told apart without a parser (after `}`, `>`, `++`), refuse.
    if (this.last === 'close-brace' || this.last === 'angle-close' || this.last === 'incdec' || this.last === 'ambiguous')
      return this.refuse('ambiguous slash')
    if (this.last === 'value' || this.last === 'word' || this.last === 'close-paren') {
      this.i++
      this.last = 'op'
      return this.step()
    }
    return this.regex()
  }

  private regex(): boolean {
    const t = this.text
    let inClass = false
    for (this.i++; this.i < t.length; this.i++) {
      const c = t[this.i]
      if (c === '\n') return this.refuse('regex line')
      if (c === '\\') this.i++
      else if (c === '[') inClass = true
      else if (c === ']') inClass = false
      else if (c === '/' && !inClass) {
        this.i++
        while (this.i < t.length && /\w/.test(t[this.i]!)) this.i++
        this.last = 'value'
        return true
      }
    }
    return this.refuse('unclosed regex')
  }

  private quoted(q: string): boolean {
    const t = this.text
    for (this.i++; this.i < t.length; this.i++) {
      const c = t[this.i]
      if (c === '\n') return this.refuse('string line')
      if (c === '\\') this.i++
      else if (c === q) {
        this.i++
        this.last = 'value'
        return true
      }
    }
    return this.refuse('unclosed string')
  }

  private template(): boolean {
    this.i++
    return this.templateRest()
  }

  /** Inside a template's text: up to its end (a value) or its next `${` (a group). */
  private templateRest(): boolean {
    const t = this.text
    for (; this.i < t.length; this.i++) {
      const c = t[this.i]
      if (c === '\\') this.i++
      else if (c === '`') {
        this.i++
        this.last = 'value'
        return true
      } else if (c === '$' && t[this.i + 1] === '{') return this.open('${', false)
    }
    return this.refuse('unclosed template')
  }

  /** `if (`, `while (`, `for (`, `for await (`, `with (`: after its `)` a `/` starts a regular expression. */
  private afterControlWord(): boolean {
    if (this.last !== 'word' && this.last !== 'ambiguous') return false
    return CONTROL_WORDS.has(this.lastWord) || (this.lastWord === 'await' && this.wordBefore === 'for')
  }

  private skipLine(): void {
    const end = this.text.indexOf('\n', this.i)
    this.i = end < 0 ? this.text.length : end
  }
}

/** Identifier characters (and `\` of an escape, and any non-space beyond ASCII); a number is read as one too. */
function isWordChar(c: string): boolean {
  return /[\w$\\]/.test(c) || (c > '\x7f' && !/\s/.test(c))
}

function startsWord(text: string, at: number, word: string): boolean {
  return text.startsWith(word, at) && !isWordChar(text[at + word.length] ?? ' ')
}
