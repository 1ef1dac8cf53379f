/**
 * The host-prepare gate's scan reads the text as Babel's tokenizer does, or refuses it: every bracket and
 * `<` of Babel's tokens (its parse with sdk/lite/parse.ts's options) is one the scan saw as code, not as
 * part of a string, comment, template text or regular expression. A scan that misread `x! / (…) / g` as a
 * regular expression would miss the tries inside it; this test finds such a misreading over the repo's
 * programs and a seeded soup of the tokens where lexers disagree (`/`, `x!`, `1.`, `}`, keywords, templates).
 */
import { parse, type ParserOptions } from '@babel/parser'
import { describe, expect, it } from 'vitest'
import { cleanProgramText } from '../../sdk/program-rules.js'
import { Scan } from '../../sdk/host-prep-scan.js'
import { LITE_PARSER_OPTIONS } from '../../sdk/lite/parse.js'
import { corpusPrograms } from '../sdk/lite-corpus.js'

/** The lite parser's own options, with its tokens kept. */
const OPTIONS: ParserOptions = { ...LITE_PARSER_OPTIONS, tokens: true }
const BRACKETS = new Set(['(', ')', '[', ']', '{', '}', '${'])
const LITERALS = new Set(['template', 'string', 'regexp'])

/** Babel's brackets and `<` that the scan did not see as code (empty: they agree), or undefined if not comparable. */
function misread(source: string): number[] | undefined {
  const text = cleanProgramText(source, [])
  const code: number[] = []
  if (!new Scan(text, code).run()) return undefined
  let tokens: { start: number; type: { label?: string } | string; value?: unknown }[]
  try {
    tokens = (parse(text, OPTIONS) as unknown as { tokens: typeof tokens }).tokens
  } catch {
    return undefined
  }
  const seen = new Set(code)
  return tokens
    .filter((t) => {
      const label = typeof t.type === 'string' ? t.type : (t.type.label ?? '')
      const bracket = BRACKETS.has(label) && text[t.start] !== '}'
      const angle = text[t.start] === '<' && !LITERALS.has(label)
      return (bracket || angle) && !seen.has(t.start)
    })
    .map((t) => t.start)
}

const SOUP = [
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '<',
  '>',
  '/',
  ' / ',
  '/r/',
  '/[)]/',
  '/(/g',
  '`',
  '${',
  '`a${',
  '}`',
  "'",
  '"',
  "')'",
  '"("',
  '//c\n',
  '/*(*/',
  'x',
  'x!',
  '1.',
  '.5',
  '1',
  'return ',
  'typeof ',
  'of ',
  'in ',
  'if ',
  'for ',
  'await ',
  'yield ',
  'async ',
  'let ',
  'as ',
  '=>',
  '=',
  ':',
  '?',
  ',',
  ';',
  '\n',
  ' ',
  '++',
  '--',
  '!',
  '.',
  '#x',
  '@d ',
  '\\u0061',
  '<T>',
  'a<b>',
  'new ',
  'this',
  'case ',
  'else ',
  'do ',
  'x.return ',
  'get ',
  'static ',
  'class ',
  'function ',
  'type ',
  '?.',
  '??',
]

describe("the host-prepare gate's scan reads brackets as Babel does", () => {
  it('on every program of the repo', () => {
    const wrong = corpusPrograms().filter((p) => (misread(p)?.length ?? 0) > 0)
    expect(wrong.map((p) => p.slice(0, 80))).toEqual([])
  })

  it('on the texts where a lexer must know what came before a `/`', () => {
    const texts = [
      'return x! / (a) / g',
      'return 1. / (a) / g',
      'return x.return / (a) / g',
      'let of = 1\nreturn of / (a) / g',
      'for await (const x of y) /[)]/.test(x)',
      'if (a) /(/.test(b)',
      'return (a) / (b) / (c)',
      'return `${a}` / (b) / c',
      'return a[0] / (b) / c',
      'const r = /[/(]/g; return r',
      'return x++ / (a) / g',
      'return {} / (a) / g',
      'return f<T> / (a) / g',
      'return typeof /(/.source',
      'return a\n/(b)/g',
    ]
    expect(texts.filter((t) => (misread(t)?.length ?? 0) > 0)).toEqual([])
  })

  it('on 100,000 seeded token soups', () => {
    let seed = 17
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed / 2147483648
    }
    const wrong: string[] = []
    let compared = 0
    for (let i = 0; i < 100_000 && wrong.length < 5; i++) {
      let s = ''
      const len = 5 + Math.floor(next() * 60)
      while (s.length < len) s += SOUP[Math.floor(next() * SOUP.length)]
      const found = misread(s)
      if (found === undefined) continue
      compared++
      if (found.length > 0) wrong.push(s)
    }
    expect(wrong).toEqual([])
    expect(compared).toBeGreaterThan(1_000)
  })
})
