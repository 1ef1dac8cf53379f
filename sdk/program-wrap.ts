/**
 * The ONE wrapper the type checker and the compiler both put around a program body (sdk/program-text.ts
 * re-exports it), kept apart from the normaliser so that the host can wrap a text without loading
 * TypeScript: everything that parses a program runs in the checker's thread (sdk/typecheck-pool.ts).
 */

/** A problem that stops the program before it runs, in the user's 1-based coordinates. */
export interface ProgramProblem {
  message: string
  line: number
  column: number
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
