/**
 * The Docker backend: the `Sandbox` seam over a warm pool of single-use, hardened containers, each running
 * sandbox/docker/runner/ — and, for session runs, one container per session kept across its runs (sessions.ts).
 * Infrastructure failures are `sandbox_unavailable` outcomes; nothing here rejects.
 */
import type Docker from 'dockerode'
import { randomUUID } from 'node:crypto'
import { unavailable, type Sandbox, type SandboxHost, type SandboxOutcome, type SandboxRunRequest } from '../types.js'
import { WORKSPACE_SERVICE, WorkspaceError } from '../workspace/ops.js'
import { connectEngine, type Engine } from './engine.js'
import { accessProblem, readOnlyView, workspaceMount, type WorkspaceMount } from './mount.js'
import { DEFAULT_MEMORY_MB, resolveOptions, type DockerSandboxOptions } from './options.js'
import { WarmPool } from './pool.js'
import { reapOrphans, removeInstanceContainers } from './reaper.js'
import { runInContainer } from './run.js'
import { abortedOutcome, arrival, SessionContainers, type Acquired } from './sessions.js'
import { removeContainer, spawnContainer, type ReadyContainer, type Spawned } from './spawn.js'
import { containerSpec, containerUser, sessionContainerName } from './spec.js'
import { prepareCopy, prepareUpper, stagedSpec, stageKind, stagingProblem, type DockerStage } from './staged.js'
import { containerWorkspaceOps, OpsClient } from './workspace-ops.js'

export interface DockerSandbox extends Sandbox {
  /** Wait until `count` warm containers are ready (benches, tests); false if they could not start. */
  warm(count?: number): Promise<boolean>
  /** Warm-pool hits and misses so far, and why the last container start failed (if one did). */
  readonly poolStats: { readonly hits: number; readonly misses: number; readonly lastError: string | undefined }
}

interface ActiveRun {
  ready: ReadyContainer
  ops: OpsClient | undefined
  abort: AbortController
}

const READ_ONLY_WHY =
  ' (approvals are on, so the program sees the workspace read-only: change files through the workspace tools — write_file, edit_file, mkdir, remove, bash — which are asked)'

/** A refusal of the read-only view says why the workspace is read-only, and what to do instead. */
function explainReadOnly(outcome: SandboxOutcome): SandboxOutcome {
  if (!outcome.denials?.some((d) => d.code === 'EROFS')) return outcome
  const denials = outcome.denials.map((d) => (d.code === 'EROFS' ? { ...d, message: d.message + READ_ONLY_WHY } : d))
  return { ...outcome, denials }
}

const answers = (engine: Engine): Promise<boolean> =>
  engine.docker
    .ping()
    .then(() => true)
    .catch(() => false)

export function createDockerSandbox(options: DockerSandboxOptions = {}): DockerSandbox {
  const o = resolveOptions(options)
  const instanceId = randomUUID()
  const removals = new Set<Promise<unknown>>()
  const active = new Map<string, ActiveRun>()
  let closed = false
  let reaped = false
  let opsHolder: Promise<OpsClient> | undefined
  let opsContainer: ReadyContainer | undefined
  /** Runs to serve on a staged workspace (staged.ts), by run id, until their run takes them. */
  const stages = new Map<string, DockerStage & { settle(gone: boolean): void }>()

  // Set-up problems are remembered and reported by every run, never thrown.
  const connected = connectEngine(options.engine)
  const engine = connected.ok ? connected.engine : undefined
  let setupError = connected.ok ? undefined : connected.message
  let mount: WorkspaceMount | undefined
  if (options.workspace && !setupError) {
    const m = workspaceMount(options.workspace)
    if (m.ok) mount = m.mount
    else setupError = m.message
  }
  const user = containerUser(options.user, mount)
  if (mount) setupError ??= accessProblem(mount, user)
  // The program's view; with `programWorkspace: 'read-only'` the tools are served by a writable container
  // of their own (opsOutsideRuns), never by the program's.
  const programMount = mount && o.programWorkspace === 'read-only' ? readOnlyView(mount) : mount
  const toolsApart = programMount !== mount

  const track = (p: Promise<unknown>): void => {
    removals.add(p)
    void p.finally(() => removals.delete(p))
  }
  // Containers a removal gave up on (the engine was away): tried again once an engine answers again (a
  // container starts) and at close(), so an outage leaves nothing behind.
  const leftovers = new Set<Docker.Container>()
  const remove = (container: Docker.Container): Promise<unknown> => {
    const removal = removeContainer(container).then((gone) => (gone ? leftovers.delete(container) : leftovers.add(container)))
    track(removal)
    return removal
  }
  const destroy = (c: ReadyContainer): Promise<unknown> => {
    c.channel.destroy()
    return remove(c.container)
  }
  const retryLeftovers = (): void => {
    for (const container of leftovers) void remove(container)
  }
  const spawnOn = async (memoryMb: number, sessionId?: string, forTools = false): Promise<Spawned> => {
    if (!engine) return { ok: false, message: setupError ?? 'no Docker engine configured' }
    const spec = containerSpec(o, memoryMb, user, forTools ? mount : programMount, instanceId, sessionId)
    const start = () => spawnContainer(engine, spec, memoryMb, o.startTimeoutMs, track)
    let attempt = await start()
    // A runner slow to say ready means a busy machine, not a broken engine: try it once more.
    if (!attempt.ok && attempt.busy && !closed) attempt = await start()
    if (attempt.ok) retryLeftovers()
    return attempt
  }
  const pool = new WarmPool({
    size: o.poolSize,
    idleTimeoutMs: o.idleTimeoutMs,
    startTimeoutMs: 2 * o.startTimeoutMs + 5_000,
    memoryMb: o.memoryMb ?? DEFAULT_MEMORY_MB,
    spawn: (memoryMb) => spawnOn(memoryMb),
    discard: destroy,
  })
  // Each session's own container, kept across its runs: a warm one when the pool holds one now (renamed for
  // the session), else one started for it (named and labelled with its id).
  const sessions = new SessionContainers({
    spawn: async (memoryMb, sessionId) => {
      const warm = pool.takeReady(memoryMb)
      if (!warm) return spawnOn(memoryMb, sessionId)
      await warm.container.rename({ name: sessionContainerName(sessionId) }).catch(() => undefined)
      return { ok: true, ready: warm }
    },
    destroy,
  })

  /** A single-use container from the warm pool, removed after the run. */
  async function takeWarm(request: SandboxRunRequest, signal: AbortSignal): Promise<Acquired> {
    const spawned = await arrival(pool.take(o.memoryMb ?? request.limits.memoryMb), signal, destroy)
    if (spawned === undefined) return { ok: false, outcome: abortedOutcome() }
    if (!spawned.ok) return { ok: false, outcome: unavailable(spawned.message) }
    const ready = spawned.ready
    return {
      ok: true,
      ready,
      abort: new AbortController(),
      release: () => {
        // Single use. The engine requests (its removal, the refill's create) are made a macrotask later, so
        // the run's outcome does not wait while they are built; close() waits for this as for a removal.
        track(
          new Promise<void>((resolve) =>
            setImmediate(() => {
              void destroy(ready)
              pool.fill() // refill after the run, not during it: a container start competes for the CPU
              resolve()
            }),
          ),
        )
      },
    }
  }

  /**
   * A container of its own for a staged run (never pooled: its workspace is the run's overlay). One that
   * failed to start is removed, with its overlay volume, before this answers: the stage settles only once
   * nothing mounts it (`gone.ok` says whether that worked).
   */
  async function spawnStaged(stage: DockerStage, memoryMb: number, gone: { ok: boolean }): Promise<Spawned> {
    if (!engine) return { ok: false, message: 'no Docker engine configured' }
    const kind = stageKind(o.runtime)
    if (kind === 'copy' && !mount!.allReadOnly) {
      try {
        await prepareCopy(mount!, stage)
      } catch (e) {
        return { ok: false, message: `the workspace could not be copied into the stage: ${(e as Error).message}` }
      }
    }
    const spec = stagedSpec(containerSpec(o, memoryMb, user, mount, instanceId), mount!, stage, kind)
    const removals: Promise<boolean>[] = []
    const waitFor = (removal: Promise<boolean>): void => {
      removals.push(removal)
      track(removal)
    }
    const spawned = await spawnContainer(engine, spec, memoryMb, o.startTimeoutMs, waitFor)
    if (!(await Promise.all(removals)).every(Boolean)) gone.ok = false
    return spawned
  }

  /** A staged run's own container; its release waits until the container (and the overlay) is gone. */
  async function takeStaged(
    request: SandboxRunRequest,
    signal: AbortSignal,
    staged: { stage: DockerStage; gone: { ok: boolean } },
  ): Promise<Acquired> {
    // Waited for even when aborted: a staged container must be gone before its stage settles.
    const s = await spawnStaged(staged.stage, o.memoryMb ?? request.limits.memoryMb, staged.gone)
    if (s.ok && signal.aborted) {
      s.ready.channel.destroy()
      staged.gone.ok = await removeContainer(s.ready.container, 8)
    }
    if (signal.aborted) return { ok: false, outcome: abortedOutcome() }
    if (!s.ok) return { ok: false, outcome: unavailable(s.message) }
    const ready = s.ready
    return {
      ok: true,
      ready,
      abort: new AbortController(),
      release: async () => {
        ready.channel.destroy()
        staged.gone.ok = await removeContainer(ready.container, 8)
      },
    }
  }

  /** A staged run settles its stage once its container (and the overlay) is gone, whatever the outcome. */
  async function run(request: SandboxRunRequest, host: SandboxHost, signal: AbortSignal): Promise<SandboxOutcome> {
    const stage = stages.get(request.runId)
    if (!stage) return runOn(request, host, signal, undefined)
    stages.delete(request.runId)
    const gone = { ok: true }
    try {
      // A session's container mounts the real workspace for all its runs: it cannot serve a staged view.
      if (request.session)
        return unavailable('a session run cannot be staged on the docker sandbox (--dry-run, --atomic, --review): run it without a session')
      return await runOn(request, host, signal, { stage, gone })
    } finally {
      stage.settle(gone.ok)
    }
  }

  async function runOn(
    request: SandboxRunRequest,
    host: SandboxHost,
    signal: AbortSignal,
    staged: { stage: DockerStage; gone: { ok: boolean } } | undefined,
  ): Promise<SandboxOutcome> {
    if (setupError) return unavailable(setupError)
    if (closed) return unavailable('the docker sandbox is closed')
    if (signal.aborted) return abortedOutcome()
    const got = request.session
      ? await sessions.acquire(request.session, request.callerId, o.memoryMb ?? request.limits.memoryMb, signal)
      : staged
        ? await takeStaged(request, signal, staged)
        : await takeWarm(request, signal)
    if (!got.ok) return got.outcome
    const { ready, abort } = got
    if (closed) {
      await got.release(abortedOutcome())
      return abortedOutcome()
    }
    const forward = (): void => abort.abort()
    signal.addEventListener('abort', forward, { once: true })
    const ops = mount ? new OpsClient(ready.channel, mount) : undefined
    active.set(request.runId, { ready, ops, abort })
    let outcome: SandboxOutcome = unavailable('the docker sandbox failed')
    try {
      outcome = await runInContainer(ready, request, host, abort.signal, {
        onOpResult: (msg) => ops?.onResult(msg),
      })
      return toolsApart ? explainReadOnly(outcome) : outcome
    } finally {
      signal.removeEventListener('abort', forward)
      active.delete(request.runId)
      await got.release(outcome)
    }
  }

  /** Workspace ops outside any run go to one pooled container kept for that (never used for a program). */
  function opsOutsideRuns(m: WorkspaceMount): Promise<OpsClient> {
    if (opsHolder && opsContainer?.channel.isOpen !== false) return opsHolder
    if (opsContainer) destroy(opsContainer) // it died (or an exec killed it): replace it
    opsContainer = undefined
    const memoryMb = o.memoryMb ?? DEFAULT_MEMORY_MB
    opsHolder = (toolsApart ? spawnOn(memoryMb, undefined, true) : pool.take(memoryMb)).then((s) => {
      if (!toolsApart) pool.fill()
      if (!s.ok) {
        opsHolder = undefined
        throw new WorkspaceError('SANDBOX_UNAVAILABLE', s.message)
      }
      if (closed) {
        destroy(s.ready)
        throw new WorkspaceError('SANDBOX_UNAVAILABLE', 'the docker sandbox is closed')
      }
      opsContainer = s.ready
      const client = new OpsClient(s.ready.channel, m)
      s.ready.channel.handler = (msg) => (msg.type === 'opResult' ? client.onResult(msg) : undefined)
      return client
    })
    return opsHolder
  }

  return {
    name: 'docker',
    // The program has Node and the mounted workspace: effects no host can hold, so it runs after its verdict.
    capabilities: { nodeModules: true, effectsOnlyThroughHost: false, programWrites: true, sessions: true, stagesItself: true },
    poolStats: pool.stats,
    async start() {
      if (setupError || closed || !engine) return
      if (!(await answers(engine))) return // runs will say why
      if (!reaped) {
        reaped = true
        track(reapOrphans(options.engine ? { engine: options.engine } : {}).catch(() => undefined))
      }
      // A ready container before the run is asked for: waiting for one here is outside the run's time limit.
      await pool.warm(1, 2 * o.startTimeoutMs + 5_000)
    },
    async ready() {
      if (closed) return 'the docker sandbox is closed'
      if (setupError || !engine) return setupError ?? 'no Docker engine configured'
      return (await answers(engine)) ? undefined : `the Docker engine at ${engine.label} does not answer`
    },
    run(request, host, signal) {
      return run(request, host, signal).catch((e: unknown) =>
        unavailable(`the docker sandbox failed: ${e instanceof Error ? e.message : String(e)}`),
      )
    },
    services(runId) {
      const m = mount
      if (!m) return {}
      return {
        [WORKSPACE_SERVICE]: containerWorkspaceOps(m, async () => {
          const own = runId === undefined || toolsApart ? undefined : active.get(runId)?.ops
          return own ?? opsOutsideRuns(m)
        }),
      }
    },
    endSession: (id) => sessions.end(id),
    stageRun(runId, stage) {
      if (!mount) return 'there is no workspace to stage'
      if (toolsApart)
        return (
          'with approvals on (--ask, `approve`) the program sees the workspace read-only and only the tools write it, ' +
          'which a staged run cannot serve: drop --ask and use --review to approve the whole change, or run without staging'
        )
      const problem = stagingProblem(mount, stage) ?? prepareUpper(mount, stage)
      if (problem) return problem
      let settle!: (gone: boolean) => void
      const settled = new Promise<boolean>((resolve) => (settle = resolve))
      stages.set(runId, { ...stage, settle })
      return {
        readBack: stageKind(o.runtime),
        settled: () => settled,
        cancel: () => {
          if (stages.delete(runId)) settle(true)
        },
      }
    },
    async warm(count) {
      if (setupError || closed) return false
      return pool.warm(count)
    },
    async close() {
      closed = true
      for (const run of active.values()) run.abort.abort()
      sessions.close()
      await pool.close()
      if (opsContainer) destroy(opsContainer)
      opsHolder?.catch(() => undefined)
      // Runs in flight end as `aborted` and remove their containers; wait for every removal (a minute at most).
      // With no removal pending yet (a run still killing its container), Promise.all([]) would resolve at
      // once: wait on the tick alone, or this loop spins in microtasks, starving the kill it waits for.
      retryLeftovers()
      for (const until = Date.now() + 60_000; (removals.size > 0 || active.size > 0) && Date.now() < until; ) {
        let timer: NodeJS.Timeout | undefined
        const tick = new Promise((r) => (timer = setTimeout(r, 50)))
        await (removals.size > 0 ? Promise.race([Promise.all([...removals]), tick]) : tick)
        clearTimeout(timer)
      }
      await removeInstanceContainers(engine, instanceId)
    },
  }
}
