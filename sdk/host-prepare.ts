/**
 * A check-off one-shot program prepared in the host's own thread, without the checker thread's round trip
 * (on this kind of VM waking an idle core for it cost a warm run ~0.5 ms of its ~2): the gate
 * (host-prep-gate.ts), then the thread's own check-off code (sdk/lite/prepare.ts: prepareLite, compileLite)
 * — Babel's normalising and wrapper-shape proof, oxc behind its depth gate, acorn's proof of oxc's output.
 * Same functions, so the same text, proofs and compiled output as the thread's answer.
 *
 * Invariant 5 (the host's thread never waits on a program): this runs nothing of the program; it parses
 * its text, and only a text the gate admits — a linear-time lexical bound under which these parsers'
 * known super-linear cases cannot occur, measured and attack-tested with the gate. Anything else goes to
 * the thread (undefined): a text the gate refuses, one that oxc does not compile (esbuild's turn, from the
 * thread), a parser's throw (a RangeError past this thread's stack). Nothing here throws into the host.
 * oxc is a native module in this process either way: a crash of it ended the process from the thread too.
 *
 * Loaded by dynamic import (runtime/typecheck.ts, cli/prestart.ts), so a process that never prepares a
 * program in its own thread never loads Babel, acorn or oxc into it.
 */
import type { CompiledText } from './program-compile.js'
import { loadFastCompiler } from './program-fast.js'
import { hostPrepareAdmits } from './host-prep-gate.js'
import { compileLite, type LiteAnswer, liteShapes, prepareLite } from './lite/prepare.js'

/** Resolves once oxc is loaded too: before that, every program would go to esbuild, from the thread. */
export const hostPrepareReady: Promise<void> = loadFastCompiler()

/** The shapes' fallback past the lite parsers' stacks: TypeScript's, which only the thread has. */
const toThread = (): Promise<never> => Promise.reject(new Error('past the lite parsers: the thread prepares it'))
const shapes = liteShapes(toThread)
const noEsbuildHere = async (): Promise<CompiledText | undefined> => undefined

/** `source` prepared and compiled here, or undefined: the checker's thread prepares it (as it did before). */
export async function prepareInHost(source: string, allowNodeImports: boolean): Promise<LiteAnswer | undefined> {
  try {
    if (!hostPrepareAdmits(source)) return undefined
    return await compileLite(prepareLite(source, allowNodeImports), true, shapes, noEsbuildHere)
  } catch {
    return undefined
  }
}
