/**
 * The type checker's thread (a worker_threads Worker): TypeScript is loaded here and only here, so the host's
 * thread never parses a 9 MB compiler nor a program. Everything that parses a program runs here: normalising,
 * the wrapper's shape check (of the source and of esbuild's output), finding namespaces, the type check. The
 * host (typecheck-pool.ts) sends one request at a time and terminates this thread when one runs past its budget.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { liteAnswers } from './lite/prepare.js'
import { wrapProgram } from './program-wrap.js'
import type { NormalisedProgram } from './program-text.js'
import type { ProgramProblem } from './program-wrap.js'
import type { SessionRewrite } from './session-text.js'
import type {
  CheckerThreadData,
  CheckRequest,
  CheckResponse,
  NormalisedMessage,
  ParseAnswer,
  SessionPrepared,
  WarmedMessage,
} from './typecheck-protocol.js'
import type { TypeChecker } from './typecheck.js'

/** TypeScript and what stands on it, loaded by the first request that needs it (sdk/typecheck-ts.ts). */
type Full = typeof import('./typecheck-ts.js')
let full: Promise<Full> | undefined
const loadFull = (): Promise<Full> => (full ??= import('./typecheck-ts.js'))

/** Checkers by SDK text, newest last: a few runtimes (or SDK versions) share one thread. */
const MAX_CHECKERS = 4
const checkers = new Map<string, TypeChecker>()

function checkerFor(t: Full, declarations: string, nodeTypes: boolean): TypeChecker {
  const key = `${nodeTypes ? 'node' : 'sandbox'}\n${declarations}`
  let checker = checkers.get(key)
  if (checker !== undefined) {
    checkers.delete(key)
  } else {
    checker = t.createTypeChecker(nodeTypes ? { ambientFiles: t.nodeAmbientFiles() } : {})
    checker.setDeclarations(declarations)
  }
  checkers.set(key, checker)
  for (const key of checkers.keys()) if (checkers.size > MAX_CHECKERS) checkers.delete(key)
  return checker
}

/** The lib is parsed (once per thread, ~0.5 s and ~20 MB): only in a process that checks programs. */
let libParsed = false
function parseLib(t: Full): void {
  t.createTypeChecker().check('return 1')
  libParsed = true
}

/** The session rewrite, made total: if it fails, the cell does not run (unrewritten, its bindings would be lost unseen). */
function rewriteSafely(t: Full, normalised: NormalisedProgram): SessionRewrite | { problem: ProgramProblem } {
  try {
    return t.rewriteSessionProgram(normalised.text)
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e)
    return { problem: { message: `the program could not be prepared as a session cell (${why}); nothing ran`, line: 1, column: 1 } }
  }
}

const port = parentPort
if (port !== null) {
  // A check-off one-shot request (and every parse task) is answered without TypeScript (sdk/lite/).
  const answer = (t: Full, request: CheckRequest): void => {
    let response: CheckResponse
    try {
      if (request.declarations !== undefined && !libParsed) {
        parseLib(t)
        port.postMessage({ id: request.id, warmed: true } satisfies WarmedMessage)
      }
      if (request.task !== undefined) {
        // A parse task the lite parsers could not finish (sdk/lite/prepare.ts): TypeScript's reading.
        const task = request.task
        const parsed: ParseAnswer =
          task.kind === 'shape'
            ? { shape: t.checkWrappedShape(task.text, task.language) }
            : { spans: t.topLevelNamespaceSpans(task.source) }
        port.postMessage({ id: request.id, ok: true, diagnostics: [], parsed } satisfies CheckResponse)
        return
      }
      let source = request.source ?? 'return 1'
      const session = request.session
      if (request.normalise && request.source !== undefined) {
        const normalised = t.normaliseSafely(request.source, request.normalise.allowNodeImports, session !== undefined)
        // A session cell runs rewritten (its declarations made globals) and is checked as written.
        const rewritten = session && !normalised.problem ? rewriteSafely(t, normalised) : undefined
        const rewrite = rewritten && 'text' in rewritten ? rewritten : undefined
        const runnable: NormalisedProgram =
          rewritten && 'problem' in rewritten
            ? { ...normalised, problem: rewritten.problem }
            : rewrite && rewrite.bindings.length > 0
              ? { ...normalised, text: rewrite.text, changes: [...normalised.changes, t.SESSION_CHANGE] }
              : normalised
        const shape = runnable.problem ? undefined : t.checkWrappedShape(wrapProgram(runnable.text).text, 'ts')
        // Until the check answers (or without one), the cell's names are declared untyped; with the check
        // off, the declarations stay as given.
        const prepared: SessionPrepared | undefined = session && {
          declarations:
            request.declarations === undefined || !rewrite
              ? session.declarations
              : t.untypedDeclarations(session.declarations, rewrite.bindings),
          bindings: rewrite?.bindings ?? [],
        }
        port.postMessage({
          id: request.id,
          normalised: runnable,
          ...(shape ? { shape } : {}),
          ...(prepared ? { session: prepared } : {}),
        } satisfies NormalisedMessage)
        if (runnable.problem || request.declarations === undefined) {
          port.postMessage({ id: request.id, ok: true, diagnostics: [] } satisfies CheckResponse)
          return
        }
        source = normalised.text
      }
      if (request.declarations !== undefined && session !== undefined) {
        const checked = checkerFor(t, request.declarations, request.nodeTypes === true).checkSession(source, session.declarations)
        const declarations = checked.declarations
        port.postMessage({
          id: request.id,
          ok: true,
          diagnostics: checked.diagnostics,
          ...(declarations !== undefined ? { session: { declarations } } : {}),
        } satisfies CheckResponse)
        return
      }
      const diagnostics =
        request.declarations === undefined ? [] : checkerFor(t, request.declarations, request.nodeTypes === true).check(source)
      response = { id: request.id, ok: true, diagnostics }
    } catch (e) {
      response = { id: request.id, ok: false, message: e instanceof Error ? e.message : String(e) }
    }
    port.postMessage(response)
  }
  port.on('message', (request: CheckRequest) => {
    const lite = liteAnswers(request)
    if (lite !== undefined) for (const message of lite) port.postMessage(message)
    else {
      // Loading TypeScript is the thread's start-up, not the request's work: its budget starts again.
      const first = full === undefined
      loadFull().then(
        (t) => {
          if (first) port.postMessage({ id: request.id, warmed: true } satisfies WarmedMessage)
          answer(t, request)
        },
        (e: unknown) => port.postMessage({ id: request.id, ok: false, message: String(e) } satisfies CheckResponse),
      )
    }
  })
  // In a process that checks programs, parse the lib before saying ready, so a first check's budget is the
  // check's own. With the check off the thread only normalises and parses: the lib is never needed.
  if ((workerData as CheckerThreadData | undefined)?.warmChecker !== false)
    void loadFull().then((t) => {
      parseLib(t)
      port.postMessage({ ready: true })
    })
  else port.postMessage({ ready: true })
}
