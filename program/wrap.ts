/**
 * The ONE wrapper the type checker and the compiler both put around a program body (program/normalise.ts
 * re-exports it), kept apart from the normaliser so that the host can wrap a text without loading
 * TypeScript: everything that parses a program runs in the checker's thread (program/typecheck-pool.ts).
 */

/** A problem that stops the program before it runs, in the user's 1-based coordinates. */
export interface ProgramProblem {
  message: string
  line: number
  column: number
  /** The parser's own reason, when the text did not parse at all (not a wrapper broken out of). */
  syntax?: string
}

/** What checkWrappedShape answers: the wrapped text is exactly the wrapper's one function, or why not. */
export type ShapeResult = { ok: true } | { ok: false; problem: ProgramProblem }

/** The head sits on a line of its own: user line N is wrapped line N + 1. */
export const WRAP_HEAD = "(async function () { 'use strict';\n"
export const WRAP_TAIL = '\n})'
export const WRAP_LINE_OFFSET = 1

export interface WrappedProgram {
  /** The whole text: head, body, tail. */
  text: string
  /** Lines before the body's first line. */
  lineOffset: number
  /** Offsets of the body inside `text`. */
  bodyStart: number
  bodyEnd: number
}

export function wrapProgram(body: string): WrappedProgram {
  return {
    text: WRAP_HEAD + body + WRAP_TAIL,
    lineOffset: WRAP_LINE_OFFSET,
    bodyStart: WRAP_HEAD.length,
    bodyEnd: WRAP_HEAD.length + body.length,
  }
}

/** Where a parser found the wrapper's own function in a wrapped text. */
export interface WrapperFound {
  /** One past the `}` that ends the function's body. */
  bodyEnd: number
  /** How many top-level statements the text has. */
  statements: number
}

/**
 * The wrapper proof's verdict from what TypeScript's parser found (program/shape.ts reads the text), kept
 * beside the wrapper it proves. `position` turns an offset into a 0-based line and character.
 */
export function wrapperVerdict(
  text: string,
  language: 'ts' | 'js',
  found: WrapperFound | undefined,
  firstStatementEnd: number,
  position: (pos: number) => { line: number; character: number },
): ShapeResult {
  const early = (pos: number): { ok: false; problem: ProgramProblem } => {
    const lc = position(Math.min(Math.max(pos, 0), text.length))
    const line = Math.max(1, lc.line + 1 - WRAP_LINE_OFFSET)
    return {
      ok: false,
      problem: {
        message: `line ${line}: this \`}\` closes the program itself (it has no matching \`{\`); remove it. The program is the body of one async function.`,
        line,
        column: lc.character + 1,
      },
    }
  }
  if (!found) return early(firstStatementEnd)
  const close = found.bodyEnd - 1 // the `}` that ended the function
  const tail = text.slice(found.bodyEnd).replace(/^\s*\)\s*;?\s*$/, '')
  if (found.statements !== 1 || tail !== '') return early(close)
  if (language === 'ts' && found.bodyEnd !== text.length - WRAP_TAIL.length + 2) return early(close)
  return { ok: true }
}
