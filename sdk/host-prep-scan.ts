/**
 * The host-prepare gate's one pass (sdk/host-prep-gate.ts says why): brackets, templates and the tries Babel's
 * TypeScript plugin may make, each weighed by how many times its span may be parsed.
 */
import {
  AMBIGUOUS_WORDS,
  type Group,
  HOST_PREP_LIMITS,
  type Last,
  TRY_FACTOR,
  BEFORE_REGEX,
  CLOSE,
  CONTINUING,
  CONTROL_WORDS,
  isWordChar,
  OPEN,
  quotedEnd,
  regexEnd,
  startsWord,
  TYPE_PREFIX,
  templateTextEnd,
} from './host-prep-lex.js'

export class Scan {
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

  /** `code`: where the test wants each bracket and `<` this scan read as code (the differential test against Babel's tokens). */
  constructor(
    private readonly text: string,
    private readonly code?: number[],
  ) {}

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
    // Decorators and HTML-like comments are never oxc's (sdk/program-fast.ts): the thread's esbuild compiles
    // them, so parsing them here is only work (123 decorators: 14 ms of CPU).
    if (c === '@') return this.refuse('decorator')
    if (t.startsWith('<!--', this.i) || t.startsWith('-->', this.i)) return this.refuse('html comment')
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
      this.code?.push(this.i - 1)
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
    } else if (c === '!' && t[this.i] !== '=' && (this.last === 'value' || this.last === 'word' || this.last === 'close-paren')) {
      // `x!` (TypeScript's non-null assertion) ends a value: a `/` after it divides, after a prefix `!` it
      // starts a regular expression. Which one is the parser's to say: `/` after it is refused.
      this.last = 'ambiguous'
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
    this.code?.push(this.i)
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
    this.code?.push(this.i)
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
    if (
      this.last === 'close-brace' ||
      this.last === 'angle-close' ||
      this.last === 'incdec' ||
      this.last === 'ambiguous' ||
      this.last === 'dot'
    )
      return this.refuse('ambiguous slash')
    if (this.last === 'value' || this.last === 'word' || this.last === 'close-paren') {
      this.i++
      this.last = 'op'
      return this.step()
    }
    return this.regex()
  }

  private regex(): boolean {
    return this.value(regexEnd(this.text, this.i))
  }

  private quoted(q: string): boolean {
    return this.value(quotedEnd(this.text, this.i, q))
  }

  /** A literal read to `end` (or the reason it could not be). */
  private value(end: number | string): boolean {
    if (typeof end === 'string') return this.refuse(end)
    this.i = end
    this.last = 'value'
    return true
  }

  private template(): boolean {
    this.i++
    return this.templateRest()
  }

  /** Inside a template's text: up to its end (a value) or its next `${` (a group). */
  private templateRest(): boolean {
    const end = templateTextEnd(this.text, this.i)
    if (typeof end === 'string') return this.refuse(end)
    this.i = end.at
    if (end.substitution) return this.open('${', false)
    this.last = 'value'
    return true
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
