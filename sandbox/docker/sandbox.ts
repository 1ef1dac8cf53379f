/**
 * The Docker backend: the `Sandbox` seam over a warm pool of single-use, hardened containers, each running
 * images/runner.mjs — and, for session runs, one container per session kept across its runs (sessions.ts).
 * Infrastructure failures are `sandbox_unavailable` outcomes; nothing here rejects.
 */
import type Docker from 'dockerode'
import { randomUUID } from 'node:crypto'
import { unavailable, type Sandbox, type SandboxHost, type SandboxOutcome, type SandboxRunRequest } from '../types.js'
import { WORKSPACE_SERVICE, WorkspaceError } from '../workspace/ops.js'
import { connectEngines, type Engine } from './engine.js'
import { accessProblem, workspaceMount, type WorkspaceMount } from './mount.js'
import { DEFAULT_MEMORY_MB, resolveOptions, type DockerSandboxOptions } from './options.js'
import { WarmPool } from './pool.js'
import { reapOrphans } from './reaper.js'
import { runInContainer } from './run.js'
import { SessionContainers, type Acquired } from './sessions.js'
import { removeContainer, spawnContainer, type ReadyContainer, type Spawned } from './spawn.js'
import { containerSpec, containerUser, sessionContainerName } from './spec.js'
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

export function createDockerSandbox(options: DockerSandboxOptions = {}): DockerSandbox {
  const o = resolveOptions(options)
  const instanceId = randomUUID()
  const removals = new Set<Promise<unknown>>()
  const active = new Map<string, ActiveRun>()
  let closed = false
  let reaped = false
  let opsHolder: Promise<OpsClient> | undefined
  let opsContainer: ReadyContainer | undefined

  // Set-up problems are remembered and reported by every run, never thrown.
  const connected = connectEngines(options.engines)
  const engines: Engine[] = connected.ok ? connected.engines : []
  let setupError = connected.ok ? undefined : connected.message
  let mount: WorkspaceMount | undefined
  if (options.workspace && !setupError) {
    const m = workspaceMount(options.workspace)
    if (m.ok) mount = m.mount
    else setupError = m.message
  }
  const user = containerUser(options.user, mount)
  if (mount) setupError ??= accessProblem(mount, user)

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
  let turn = 0
  // Round-robin across engines; an engine that fails is skipped for the next one, once around.
  const spawnOn = async (memoryMb: number, sessionId?: string): Promise<Spawned> => {
    const first = turn++
    let spawned: Spawned = { ok: false, message: setupError ?? 'no Docker engine configured' }
    for (let i = 0; i < engines.length; i++) {
      const engine = engines[(first + i) % engines.length]
      if (!engine) break
      const spec = containerSpec(o, memoryMb, user, mount, instanceId, sessionId)
      const start = () => spawnContainer(engine, spec, memoryMb, o.startTimeoutMs, track)
      let attempt = await start()
      // A runner slow to say ready means a busy machine, not a broken engine: try it once more.
      if (!attempt.ok && attempt.busy && !closed) attempt = await start()
      if (attempt.ok) {
        retryLeftovers()
        return attempt
      }
      spawned = i === 0 ? attempt : { ok: false, message: `${spawned.message}; ${attempt.message}` }
    }
    return spawned
  }
  const pool = new WarmPool({
    size: o.poolSize,
    idleTimeoutMs: o.idleTimeoutMs,
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

  const abortedOutcome = (): SandboxOutcome => ({
    ok: false,
    error: { kind: 'aborted', message: 'the run was aborted' },
    droppedOutputBytes: 0,
  })

  /** A single-use container from the warm pool, removed after the run. */
  async function takeWarm(request: SandboxRunRequest, signal: AbortSignal): Promise<Acquired> {
    const taking = pool.take(o.memoryMb ?? request.limits.memoryMb)
    let gaveUp = false
    const spawned = await new Promise<Awaited<typeof taking> | undefined>((resolve) => {
      const onAbort = (): void => {
        gaveUp = true
        resolve(undefined)
      }
      signal.addEventListener('abort', onAbort, { once: true })
      void taking.then((s) => {
        signal.removeEventListener('abort', onAbort)
        if (gaveUp && s.ok) destroy(s.ready) // arrived after the caller left
        resolve(s)
      })
    })
    if (spawned === undefined || gaveUp) return { ok: false, outcome: abortedOutcome() }
    if (!spawned.ok) return { ok: false, outcome: unavailable(spawned.message) }
    const ready = spawned.ready
    return {
      ok: true,
      ready,
      abort: new AbortController(),
      release: () => {
        destroy(ready) // single use
        pool.fill() // refill after the run, not during it: a container start competes for the CPU
      },
    }
  }

  async function run(request: SandboxRunRequest, host: SandboxHost, signal: AbortSignal): Promise<SandboxOutcome> {
    if (setupError) return unavailable(setupError)
    if (closed) return unavailable('the docker sandbox is closed')
    if (signal.aborted) return abortedOutcome()
    const got = request.session
      ? await sessions.acquire(request.session, request.callerId, o.memoryMb ?? request.limits.memoryMb, signal)
      : await takeWarm(request, signal)
    if (!got.ok) return got.outcome
    const { ready, abort } = got
    if (closed) {
      got.release(abortedOutcome())
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
      return outcome
    } finally {
      signal.removeEventListener('abort', forward)
      active.delete(request.runId)
      got.release(outcome)
    }
  }

  /** Workspace ops outside any run go to one pooled container kept for that (never used for a program). */
  function opsOutsideRuns(m: WorkspaceMount): Promise<OpsClient> {
    if (opsHolder && opsContainer?.channel.isOpen !== false) return opsHolder
    if (opsContainer) destroy(opsContainer) // it died (or an exec killed it): replace it
    opsContainer = undefined
    opsHolder = pool.take(o.memoryMb ?? DEFAULT_MEMORY_MB).then((s) => {
      pool.fill()
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
    poolStats: pool.stats,
    async start() {
      if (setupError || closed) return
      const alive = await Promise.all(
        engines.map((e) =>
          e.docker.ping().then(
            () => true,
            () => false,
          ),
        ),
      )
      if (!alive.some(Boolean)) return // runs will say why
      if (!reaped) {
        reaped = true
        track(
          reapOrphans({ engines: options.engines }).then(
            () => undefined,
            () => undefined,
          ),
        )
      }
      // A ready container before the run is asked for: waiting for one here is outside the run's time limit.
      await pool.warm(1, 2 * o.startTimeoutMs + 5_000)
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
          const own = runId === undefined ? undefined : active.get(runId)?.ops
          return own ?? opsOutsideRuns(m)
        }),
      }
    },
    endSession: (id) => sessions.end(id),
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
    },
  }
}
