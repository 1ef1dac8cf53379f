/**
 * The fast way to compile a program, in the checker's thread: oxc's transformer, a native module that
 * compiles in this thread (no round trip to esbuild's service process, which costs a usual program several
 * times oxc's own work), for the programs it compiles as esbuild does. Anything else —
 * a syntax error (esbuild's message is what the author sees), decorators, `accessor`, `using`, namespaces,
 * HTML-like comments, a text too large or nested too deeply — goes to esbuild (program/compile.ts). Its
 * output is proved like esbuild's (the same shape check of the JS, as the sandbox's parser reads it); one
 * that fails the proof goes to esbuild too, which then decides.
 *
 * Why the depth gate: oxc recurses on the native stack, and a native stack overflow ends the process, not
 * the request (functions nested 2,000 deep do in a worker's stack; 1,000 do not). The parse tree of the
 * source's shape proof (TypeScript's, program/compile-fast-gate.ts) is walked first, and a tree deeper than MAX_FAST_DEPTH nodes
 * never reaches oxc: a margin of more than 10× on the shallowest nesting that overflowed. This module itself
 * stands on no parser.
 */

/** Deeper parse trees go to esbuild (its own process, Go's growable stacks). */
export const MAX_FAST_DEPTH = 200
/** Larger programs go to esbuild: the hop matters less, and a large text is where oxc is least proven here. */
const MAX_CHARS = 64 * 1024

type Oxc = typeof import('oxc-transform')
/** null: could not be loaded (no build for this platform): every program goes to esbuild. */
let oxc: Oxc | null | undefined
let loading: Promise<void> | undefined

/** Loads oxc (once, in the background); until it is loaded programs go to esbuild. */
export function loadFastCompiler(): Promise<void> {
  loading ??= import('oxc-transform').then(
    (m) => {
      oxc = m
    },
    () => {
      oxc = null
    },
  )
  return loading
}

/** Whether oxc may be asked at all for this wrapped text (loaded, not too large, no HTML-like comments); the parse tree's gate comes on top. */
export function fastCandidate(wrapped: string): boolean {
  return !!oxc && wrapped.length <= MAX_CHARS && !wrapped.includes('<!--') && !wrapped.includes('-->')
}

/**
 * `wrapped` compiled by oxc, with its source map; undefined when it must go to esbuild. Only for a text a
 * gate (program/compile-fast-gate.ts) has passed: fastCandidate and a plain parse tree.
 */
export function oxcCompile(wrapped: string): { code: string; map: string } | undefined {
  if (!oxc || !fastCandidate(wrapped)) return undefined
  let result: ReturnType<Oxc['transformSync']>
  try {
    result = oxc.transformSync('program.ts', wrapped, { lang: 'ts', sourceType: 'script', target: 'es2022', sourcemap: true })
  } catch {
    return undefined
  }
  if (result.errors.length > 0 || Object.keys(result.helpersUsed).length > 0 || !result.map || !result.code) return undefined
  return { code: result.code, map: JSON.stringify(result.map) }
}
