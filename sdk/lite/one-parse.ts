/**
 * One Babel parse for a program that normalising leaves as it is (`return 1 + 1`, a body ending in a
 * `return`): the wrapped text is parsed first — the source's shape proof, as before — and, when that parse
 * has no error at all and proves the wrapper, the normaliser reads the program's statements from the
 * wrapper's body instead of parsing the program again as a script. If normalising then changes nothing,
 * the wrapped normalised text IS the text just parsed, so that same parse and proof stand for it (the
 * proof is not skipped: it is the very call the two-parse path makes, on the very same string). A program
 * that normalising changes is wrapped and parsed again, as before.
 *
 * Why "no error at all": the wrapper's body is strict and inside an async function, the script is neither;
 * every difference between the two readings that Babel knows of is an error in the stricter one (legacy
 * octal, `with`, `delete x`, reserved words, `yield`), so an error-free wrapped parse is read here, and any
 * other text takes the script's reading (sdk/lite/normalise.ts's normaliseLite, which the differential test
 * holds to TypeScript's). test/sdk/lite-one-parse.test.ts holds this path to that one over the same corpora.
 */
import type { BlockStatement, Node } from '@babel/types'
import { WRAP_HEAD } from '../program-wrap.js'
import type { ParsedBody } from './normalise.js'
import type { LiteParse } from './parse.js'

/** Where the wrapper's own directive is (its `'use strict'`): the body's first, before the program's own. */
const OWN_DIRECTIVE = WRAP_HEAD.indexOf("'use strict'")

/**
 * The program's statements inside `wrapped`'s parse (`parsed`, whose shape proof passed), or undefined: the
 * parse had an error (recovered or not), or is not the wrapper's one function as expected.
 */
export function wrapperBody(wrapped: string, parsed: LiteParse | undefined): ParsedBody | undefined {
  if (!parsed || parsed.syntaxError || parsed.file === undefined) return undefined
  const { file } = parsed
  if (((file as { errors?: unknown[] }).errors?.length ?? 0) > 0 || file.program.directives.length > 0 || file.program.body.length !== 1)
    return undefined
  const block = functionBody(file.program.body[0])
  const own = block?.directives[0]
  if (!block || own?.start !== OWN_DIRECTIVE) return undefined
  return {
    indexed: wrapped,
    bodyStart: WRAP_HEAD.length,
    program: { directives: block.directives.slice(1), body: block.body },
    root: block,
  }
}

function functionBody(statement: Node | undefined): BlockStatement | undefined {
  if (statement?.type !== 'ExpressionStatement') return undefined
  const paren = statement.expression
  if (paren.type !== 'ParenthesizedExpression') return undefined
  const fn = paren.expression
  return fn.type === 'FunctionExpression' && fn.body.start === WRAP_HEAD.indexOf('{') ? fn.body : undefined
}
