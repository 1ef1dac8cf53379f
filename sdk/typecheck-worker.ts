/**
 * The type checker's thread (a worker_threads Worker): TypeScript is loaded here and only here, so the host's
 * thread never parses a 9 MB compiler nor a program. Everything that parses a program runs here: normalising,
 * the wrapper's shape check (of the source and of esbuild's output), finding namespaces, the type check. The
 * host (typecheck-pool.ts) sends one request at a time and terminates this thread when one runs past its budget.
 */
import { parentPort } from 'node:worker_threads'
import { checkWrappedShape, topLevelNamespaceSpans } from './program-shape.js'
import { wrapProgram } from './program-wrap.js'
import type { NormalisedProgram } from './program-text.js'
import type { ProgramProblem } from './program-wrap.js'
import { rewriteSessionProgram, SESSION_CHANGE, type SessionRewrite } from './session-text.js'
import { untypedDeclarations } from './session-types.js'
import { normaliseSafely } from './typecheck-normalise.js'
import type { CheckRequest, CheckResponse, NormalisedMessage, ParseAnswer, ParseTask, SessionPrepared } from './typecheck-protocol.js'
import { nodeAmbientFiles } from './node-types.js'
import { createTypeChecker, type TypeChecker } from './typecheck.js'

/** Checkers by SDK text, newest last: a few runtimes (or SDK versions) share one thread. */
const MAX_CHECKERS = 4
const checkers = new Map<string, TypeChecker>()

function checkerFor(declarations: string, nodeTypes: boolean): TypeChecker {
  const key = `${nodeTypes ? 'node' : 'sandbox'}\n${declarations}`
  let checker = checkers.get(key)
  if (checker !== undefined) {
    checkers.delete(key)
  } else {
    checker = createTypeChecker(nodeTypes ? { ambientFiles: nodeAmbientFiles() } : {})
    checker.setDeclarations(declarations)
  }
  checkers.set(key, checker)
  for (const key of checkers.keys()) if (checkers.size > MAX_CHECKERS) checkers.delete(key)
  return checker
}

function parse(task: ParseTask): ParseAnswer {
  if (task.kind === 'shape') return { shape: checkWrappedShape(task.text, task.language) }
  return { spans: topLevelNamespaceSpans(task.source) }
}

/** The session rewrite, made total: if it fails, the cell does not run (unrewritten, its bindings would be lost unseen). */
function rewriteSafely(normalised: NormalisedProgram): SessionRewrite | { problem: ProgramProblem } {
  try {
    return rewriteSessionProgram(normalised.text)
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e)
    return { problem: { message: `the program could not be prepared as a session cell (${why}); nothing ran`, line: 1, column: 1 } }
  }
}

const port = parentPort
if (port !== null) {
  port.on('message', (request: CheckRequest) => {
    let response: CheckResponse
    try {
      if (request.task !== undefined) {
        port.postMessage({ id: request.id, ok: true, diagnostics: [], parsed: parse(request.task) } satisfies CheckResponse)
        return
      }
      let source = request.source ?? 'return 1'
      const session = request.session
      if (request.normalise && request.source !== undefined) {
        const normalised = normaliseSafely(request.source, request.normalise.allowNodeImports, session !== undefined)
        // A session cell runs rewritten (its declarations made globals) and is checked as written.
        const rewritten = session && !normalised.problem ? rewriteSafely(normalised) : undefined
        const rewrite = rewritten && 'text' in rewritten ? rewritten : undefined
        const runnable: NormalisedProgram =
          rewritten && 'problem' in rewritten
            ? { ...normalised, problem: rewritten.problem }
            : rewrite && rewrite.bindings.length > 0
              ? { ...normalised, text: rewrite.text, changes: [...normalised.changes, SESSION_CHANGE] }
              : normalised
        const shape = runnable.problem ? undefined : checkWrappedShape(wrapProgram(runnable.text).text, 'ts')
        // Until the check answers (or without one), the cell's names are declared untyped; with the check
        // off, the declarations stay as given.
        const prepared: SessionPrepared | undefined = session && {
          declarations:
            request.declarations === undefined || !rewrite
              ? session.declarations
              : untypedDeclarations(session.declarations, rewrite.bindings),
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
        const checked = checkerFor(request.declarations, request.nodeTypes === true).checkSession(source, session.declarations)
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
        request.declarations === undefined ? [] : checkerFor(request.declarations, request.nodeTypes === true).check(source)
      response = { id: request.id, ok: true, diagnostics }
    } catch (e) {
      response = { id: request.id, ok: false, message: e instanceof Error ? e.message : String(e) }
    }
    port.postMessage(response)
  })
  // Load the compiler and parse the lib before saying ready, so a first check's budget is the check's own.
  createTypeChecker().check('return 1')
  port.postMessage({ ready: true })
}
