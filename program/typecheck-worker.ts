/**
 * The type checker's thread (a worker_threads Worker): everything that parses a program runs here, never in
 * the host's thread (TypeScript's parser, like any parser of its grammar, has texts of a hundred bytes that
 * take it seconds; here they cost a thread under its budget, terminated past it). One request is the
 * program pipeline in loop order: prepare (prepare.ts: normalise, wrap and prove one function), compile
 * (compile.ts: oxc in this thread behind its gate, else esbuild's service, its own process, which this
 * thread talks to), then with the check on, the check (typecheck.ts). Parse tasks (a shape proof, the
 * namespaces) for compile() used by itself are answered here too. The host (typecheck-pool.ts) sends one
 * request at a time and terminates this thread when one runs past its budget.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads'
import { loadFastCompiler } from './compile-fast.js'
import { compileBody, type EsbuildWait, type ProgramShapes } from './compile.js'
import { nodeAmbientFiles } from './node-types.js'
import { prepareText } from './prepare.js'
import { checkWrappedShape, topLevelNamespaceSpans } from './shape.js'
import { createTypeChecker, type TypeChecker } from './typecheck.js'
import type {
  CheckerThreadData,
  CheckRequest,
  CheckResponse,
  CompiledMessage,
  NormalisedMessage,
  ParseAnswer,
  StageMessage,
  WarmedMessage,
} from './typecheck-protocol.js'

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

/** The lib is parsed (once per thread, a slow start): only in a process that checks programs. */
let libParsed = false
function parseLib(): void {
  createTypeChecker().check('return 1')
  libParsed = true
}

/** A stage that took longer than this (ms) gives the next its own budget (StageMessage). */
const STAGE_MS = 50
/** oxc, loaded while the thread starts: every compile waits for it, so whether a program goes to oxc never depends on timing. */
const fastLoaded = loadFastCompiler()

/**
 * A wait on esbuild's service that lasts is not this thread's work (esbuild's own process compiles, as it
 * did for the host before compiling moved here): past STAGE_MS the budget is paused, and it starts again
 * when the thread has the answer to work on.
 */
function waitOn(port: MessagePort, id: number): EsbuildWait {
  return async (answer) => {
    let paused = false
    const timer = setTimeout(() => {
      paused = true
      port.postMessage({ id, stage: 'waiting' } satisfies StageMessage)
    }, STAGE_MS)
    try {
      return await answer
    } finally {
      clearTimeout(timer)
      if (paused) port.postMessage({ id, stage: 'compile' } satisfies StageMessage)
    }
  }
}

/** TypeScript's parsing, for compiling: the shape proofs and namespaces, synchronous here. */
const shapes: ProgramShapes = { checkShape: checkWrappedShape, namespaceSpans: topLevelNamespaceSpans }

/** The type check of `source` (a session cell's against the session's declarations). */
function typeCheck(request: CheckRequest & { declarations: string }, source: string): CheckResponse {
  const checker = checkerFor(request.declarations, request.nodeTypes === true)
  if (request.session === undefined) return { id: request.id, ok: true, diagnostics: checker.check(source) }
  const checked = checker.checkSession(source, request.session.declarations)
  const declarations = checked.declarations
  return {
    id: request.id,
    ok: true,
    diagnostics: checked.diagnostics,
    ...(declarations !== undefined ? { session: { declarations } } : {}),
  }
}

/**
 * One request, answered in order: with `normalise`, the prepared text (NormalisedMessage, with the compiled
 * program when the check is off or oxc compiled it), then with the check on and esbuild compiling, the
 * compiled program (CompiledMessage: esbuild works in its own process while the check runs here), then the
 * check's answer (CheckResponse).
 */
async function answer(port: MessagePort, request: CheckRequest): Promise<CheckResponse> {
  if (request.declarations !== undefined && !libParsed) {
    parseLib()
    // The lib's parse is the thread's start-up, not the request's work: its budget starts again.
    port.postMessage({ id: request.id, warmed: true } satisfies WarmedMessage)
  }
  const { task, source, normalise, declarations } = request
  if (task !== undefined) {
    const parsed: ParseAnswer =
      task.kind === 'shape' ? { shape: checkWrappedShape(task.text, task.language) } : { spans: topLevelNamespaceSpans(task.source) }
    return { id: request.id, ok: true, diagnostics: [], parsed }
  }
  if (!normalise || source === undefined) {
    if (declarations === undefined) return { id: request.id, ok: true, diagnostics: [] }
    return typeCheck({ ...request, declarations }, source ?? 'return 1')
  }
  return prepareCompileCheck(port, { ...request, source, normalise })
}

/** The pipeline of one program: prepare, compile, and with the check on, check (compiling overlaps the check when esbuild compiles). */
async function prepareCompileCheck(
  port: MessagePort,
  request: CheckRequest & { source: string; normalise: NonNullable<CheckRequest['normalise']> },
): Promise<CheckResponse> {
  const { id, source, normalise, declarations } = request
  const stages = stageClock(port, id)
  const { checked, runnable, shape, session, fast } = prepareText({
    source,
    allowNodeImports: normalise.allowNodeImports,
    ...(request.session ? { session: request.session } : {}),
    checked: declarations !== undefined,
  })
  const compile = normalise.compile === true && !runnable.problem
  if (compile && declarations === undefined) stages.next()
  if (compile) await fastLoaded
  const compiling = compile ? compileBody(runnable.text, shapes, shape, fast, waitOn(port, id)) : undefined
  // With the check on, a program oxc compiles is done before the check starts (its answer goes with the
  // normalised text: one message fewer); esbuild's is taken after the check, which runs meanwhile.
  const compiled = declarations === undefined ? await compiling : await settledNow(compiling)
  const prepared = {
    normalised: runnable,
    ...(shape ? { shape } : {}),
    ...(session ? { session } : {}),
    ...(compiled ? { compiled } : {}),
  } satisfies Omit<NormalisedMessage, 'id'>
  // No check follows: the prepared program rides in the answer (one message, one wake-up of the host).
  if (declarations === undefined) return { id, ok: true, diagnostics: [], prepared }
  port.postMessage({ id, ...prepared } satisfies NormalisedMessage)
  if (runnable.problem) return { id, ok: true, diagnostics: [] }
  stages.restart() // the pool gave the check its own budget on NormalisedMessage
  const response = typeCheck({ ...request, declarations }, checked)
  if (compiling && !compiled) {
    stages.next()
    port.postMessage({ id, compiled: await compiling } satisfies CompiledMessage)
  }
  return response
}

/** A stage that took long (a pathological program) gives the next one its own budget (StageMessage). */
function stageClock(port: MessagePort, id: number): { next(): void; restart(): void } {
  let since = performance.now()
  return {
    next() {
      if (performance.now() - since < STAGE_MS) return
      port.postMessage({ id, stage: 'compile' } satisfies StageMessage)
      since = performance.now()
    },
    restart() {
      since = performance.now()
    },
  }
}

/** `answer`'s value if it settles before this thread's next macrotask (oxc's compile, proved in this thread), else undefined. */
async function settledNow<T>(answer: Promise<T> | undefined): Promise<T | undefined> {
  if (answer === undefined) return undefined
  // A failure is left to the later `await` (after the check), where it was always taken.
  const next = new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined)))
  return Promise.race([answer.catch(() => undefined), next])
}

const port = parentPort
if (port !== null) {
  port.on('message', (request: CheckRequest) => {
    const failed = (e: unknown): CheckResponse => ({ id: request.id, ok: false, message: e instanceof Error ? e.message : String(e) })
    void answer(port, request).then(
      (response) => port.postMessage(response),
      (e: unknown) => port.postMessage(failed(e)),
    )
  })
  // Ready once the first request would be quick: in a process that checks programs, the lib parsed (a first
  // check's budget is the check's own); else one trivial program prepared, so the parser's first run is not a
  // request's (a request that holds its thread long makes the pool start a spare). TypeScript itself was
  // loaded with this module.
  void fastLoaded.then(() => {
    if ((workerData as CheckerThreadData | undefined)?.warmChecker !== false) parseLib()
    else prepareText({ source: 'const a: number[] = [1]\nreturn a.length', allowNodeImports: false, checked: false })
    port.postMessage({ ready: true })
  })
}
