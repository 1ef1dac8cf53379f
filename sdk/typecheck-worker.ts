/**
 * The type checker's thread (a worker_threads Worker): what parses a program runs here, so the host's
 * thread never loads a 9 MB compiler nor parses a program past the host's gate (sdk/host-prepare.ts):
 * normalising, the wrapper's shape check (of the source and of the compiled output), finding namespaces,
 * the type check; and compiling, so a run is prepared and compiled in one request (oxc in this thread, or
 * esbuild's service, its own process, which this thread talks to). A check-off one-shot request and every
 * parse task are answered by sdk/lite/ (Babel and acorn; compileLite is the code the host runs for what its
 * gate admits); TypeScript (sdk/typecheck-ts.ts) is loaded by the first request that needs it — a
 * check, a session cell, a text past the lite parsers' stacks. The host (typecheck-pool.ts) sends one
 * request at a time and terminates this thread when one runs past its budget.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads'
import { compileLite, liteShapes, parseLite, prepareLiteRequest } from './lite/prepare.js'
import { compileBody, compileSlow, type EsbuildWait, type FastCompiler, type ProgramShapes } from './program-compile.js'
import { loadFastCompiler } from './program-fast.js'
import type { NormalisedProgram } from './program-text.js'
import type { ProgramProblem, ShapeResult } from './program-wrap.js'
import { wrapProgram } from './program-wrap.js'
import type { SessionRewrite } from './session-text.js'
import type {
  CheckerThreadData,
  CheckRequest,
  CheckResponse,
  CompiledMessage,
  NormalisedMessage,
  ParseAnswer,
  SessionPrepared,
  StageMessage,
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
const tsShapes = (t: Full): ProgramShapes => ({ checkShape: t.checkWrappedShape, namespaceSpans: t.topLevelNamespaceSpans })

interface Prepared {
  /** The text the check reads (a session cell as written). */
  checked: string
  runnable: NormalisedProgram
  shape?: ShapeResult
  prepared?: SessionPrepared
  fast?: FastCompiler
}

/** TypeScript's path: normalising, the session rewrite and the source's shape proof. */
function prepareText(t: Full, request: CheckRequest & { source: string; normalise: { allowNodeImports: boolean } }): Prepared {
  const session = request.session
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
  const parsed = runnable.problem ? undefined : t.parseWrappedShape(wrapProgram(runnable.text).text, 'ts')
  const file = parsed?.file
  const fast: FastCompiler | undefined = file && ((wrapped) => t.fastCompile(wrapped, file))
  // Until the check answers (or without one), the cell's names are declared untyped; with the check
  // off, the declarations stay as given.
  const prepared: SessionPrepared | undefined = session && {
    declarations:
      request.declarations === undefined || !rewrite ? session.declarations : t.untypedDeclarations(session.declarations, rewrite.bindings),
    bindings: rewrite?.bindings ?? [],
  }
  return { checked: normalised.text, runnable, shape: parsed?.shape, prepared, fast }
}

/** The type check of `source` (a session cell's against the session's declarations). */
function typeCheck(t: Full, request: CheckRequest & { declarations: string }, source: string): CheckResponse {
  const checker = checkerFor(t, request.declarations, request.nodeTypes === true)
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
  let since = performance.now()
  /** Before compiling: a stage that took long (a pathological program) gives the next one its own budget. */
  const nextStage = () => {
    if (performance.now() - since < STAGE_MS) return
    port.postMessage({ id: request.id, stage: 'compile' } satisfies StageMessage)
    since = performance.now()
  }
  /** TypeScript, loaded for this request: loading it is the thread's start-up, not the request's work (its budget starts again). */
  const typescript = async (): Promise<Full> => {
    const first = full === undefined
    const t = await loadFull()
    if (first) port.postMessage({ id: request.id, warmed: true } satisfies WarmedMessage)
    since = performance.now()
    return t
  }
  if (request.declarations !== undefined && !libParsed) {
    parseLib(await loadFull())
    port.postMessage({ id: request.id, warmed: true } satisfies WarmedMessage)
  }
  if (request.task !== undefined) {
    const task = request.task
    const parsed: ParseAnswer | undefined = parseLite(task)
    if (parsed) return { id: request.id, ok: true, diagnostics: [], parsed }
    // A parse task the lite parsers could not finish: TypeScript's reading.
    const t = await typescript()
    const answer: ParseAnswer =
      task.kind === 'shape' ? { shape: t.checkWrappedShape(task.text, task.language) } : { spans: t.topLevelNamespaceSpans(task.source) }
    return { id: request.id, ok: true, diagnostics: [], parsed: answer }
  }
  const { source, normalise, declarations } = request
  if (!normalise || source === undefined) {
    if (declarations === undefined) return { id: request.id, ok: true, diagnostics: [] }
    return typeCheck(await loadFull(), { ...request, declarations }, source ?? 'return 1')
  }
  const lite = prepareLiteRequest(request)
  if (lite) {
    // Check off, one-shot: the very function the host runs for a program its gate admits (sdk/host-prepare.ts).
    const compile = normalise.compile === true && !lite.normalised.problem
    if (compile) {
      nextStage()
      await fastLoaded
    }
    const shapes = liteShapes(async () => tsShapes(await typescript()))
    const prepared = await compileLite(lite, compile, shapes, (text, shape) => compileSlow(text, shapes, shape, waitOn(port, request.id)))
    if (prepared === undefined) return { id: request.id, ok: false, message: 'the program was not compiled' }
    return { id: request.id, ok: true, diagnostics: [], prepared }
  }
  const t = await typescript()
  const { checked, runnable, shape, prepared, fast }: Prepared = prepareText(t, { ...request, source, normalise })
  const shapes = tsShapes(t)
  const compile = normalise.compile && !runnable.problem
  if (compile && declarations === undefined) nextStage()
  if (compile) await fastLoaded
  const compiling = compile ? compileBody(runnable.text, shapes, shape, fast, waitOn(port, request.id)) : undefined
  // With the check on, a program oxc compiles is done before the check starts (its answer goes with the
  // normalised text: one message fewer); esbuild's is taken after the check, which runs meanwhile.
  const compiled = declarations === undefined ? await compiling : await settledNow(compiling)
  const normalisedMessage = {
    id: request.id,
    normalised: runnable,
    ...(shape ? { shape } : {}),
    ...(prepared ? { session: prepared } : {}),
    ...(compiled ? { compiled } : {}),
  } satisfies NormalisedMessage
  // No check follows: the prepared program rides in the answer (a second message cost the host ~30-80 µs).
  if (declarations === undefined) {
    const { id: _id, ...preparedProgram } = normalisedMessage
    return { id: request.id, ok: true, diagnostics: [], prepared: preparedProgram }
  }
  port.postMessage(normalisedMessage)
  if (runnable.problem) return { id: request.id, ok: true, diagnostics: [] }
  since = performance.now() // the pool gave the check its own budget on NormalisedMessage
  const response = typeCheck(t, { ...request, declarations }, checked)
  if (compiling && !compiled) {
    nextStage()
    port.postMessage({ id: request.id, compiled: await compiling } satisfies CompiledMessage)
  }
  return response
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
  // In a process that checks programs, load TypeScript and parse the lib before saying ready, so a first
  // check's budget is the check's own. With the check off the thread prepares with sdk/lite/: neither is needed.
  if ((workerData as CheckerThreadData | undefined)?.warmChecker !== false)
    void loadFull().then((t) => {
      parseLib(t)
      port.postMessage({ ready: true })
    })
  else port.postMessage({ ready: true })
}
