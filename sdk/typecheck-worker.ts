/**
 * The type checker's thread (a worker_threads Worker): TypeScript is loaded here and only here, so the host's
 * thread never parses a 9 MB compiler nor waits on a pathological program. The host (typecheck-pool.ts) sends
 * one request at a time and terminates this thread when a check runs past its budget.
 */
import { parentPort } from 'node:worker_threads'
import { normaliseSafely } from './typecheck-normalise.js'
import type { CheckRequest, CheckResponse, NormalisedMessage } from './typecheck-protocol.js'
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

const port = parentPort
if (port !== null) {
  port.on('message', (request: CheckRequest) => {
    let response: CheckResponse
    try {
      let source = request.source ?? 'return 1'
      if (request.normalise && request.source !== undefined) {
        const normalised = normaliseSafely(request.source, request.normalise.allowNodeImports)
        port.postMessage({ id: request.id, normalised } satisfies NormalisedMessage)
        if (normalised.problem) {
          port.postMessage({ id: request.id, ok: true, diagnostics: [] } satisfies CheckResponse)
          return
        }
        source = normalised.text
      }
      const checker = checkerFor(request.declarations, request.nodeTypes === true)
      response = { id: request.id, ok: true, diagnostics: checker.check(source) }
    } catch (e) {
      response = { id: request.id, ok: false, message: e instanceof Error ? e.message : String(e) }
    }
    port.postMessage(response)
  })
  // Load the compiler and parse the lib before saying ready, so a first check's budget is the check's own.
  createTypeChecker().check('return 1')
  port.postMessage({ ready: true })
}
