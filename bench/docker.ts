/**
 * The Docker backend, end to end through the Sandbox interface: a cold run (no pool), a warm-pool run (a
 * ready container taken; the refill happens between samples, untimed), the cost of a tool call inside a
 * container, and baselines measured in the same run with the same image and hardening: the hop's floor (a
 * line echoed through a standing container's attach stream), `docker run` per program (the CLI), and
 * `docker exec` of a fresh `node` runner per program in one standing container.
 * The same cold and warm runs under gVisor (`runtime: 'runsc'`) where the engine has it, each against its
 * runc row. Returns no rows (with a note) when no engine or image is there.
 */
import Docker from 'dockerode'
import { spawn } from 'node:child_process'
import type { Duplex } from 'node:stream'
import type { LogEntry } from '../vocabulary/types.js'
import { createDockerSandbox, DEFAULT_IMAGE } from '../sandbox/docker/index.js'
import { RUNNER_ARGS } from '../sandbox/docker/spec.js'
import type { SandboxHost, SandboxRunRequest } from '../sandbox/types.js'
import { guestSource } from '../sandbox/guest-source.js'
import type { BenchRow } from './types.js'

const WARM_RUNS = 40
const ECHOES = 100
/** The backend's hardening, for the baselines' containers. */
const HARDENED = {
  NetworkMode: 'none',
  ReadonlyRootfs: true,
  CapDrop: ['ALL'],
  SecurityOpt: ['no-new-privileges'],
  PidsLimit: 128,
  Memory: 128 << 20,
  MemorySwap: 128 << 20,
  Tmpfs: { '/tmp': 'rw,noexec,nosuid,nodev,size=64m' },
  Init: true,
}
const COLD_RUNS = 6
const BASELINE_RUNS = 6
const CALLS = 500

const host: SandboxHost = { callTool: async () => '{"ok":true,"value":null}', log: (_: LogEntry[]) => {} }
const never = new AbortController().signal
const BODY = 'return 1'

function request(body: string): SandboxRunRequest {
  return {
    runId: `bench-${Math.random()}`,
    js: `(async function (tools, ToolCallError, console) {"use strict";\n${body}\n})`,
    toolNames: ['noop'],
    limits: { timeoutMs: 60_000, memoryMb: 128, maxOutputBytes: 1 << 20 },
  }
}
const runMessage =
  JSON.stringify({
    type: 'run',
    runId: 'b',
    js: request(BODY).js,
    prelude: guestSource('container'),
    toolNames: [],
    maxOutputBytes: 1 << 20,
  }) + '\n'

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}
const round = (n: number) => Number(n.toFixed(n < 10 ? 2 : 1))
const row = (name: string, samples: number[], extra: Partial<BenchRow> = {}): BenchRow => ({
  name,
  p50Ms: round(percentile(samples, 50)),
  p95Ms: round(percentile(samples, 95)),
  ...extra,
})

async function timed(fn: () => Promise<{ ok: boolean }>): Promise<number> {
  const start = performance.now()
  const out = await fn()
  const ms = performance.now() - start
  if (!out.ok) throw new Error(`bench run failed: ${JSON.stringify(out)}`)
  return ms
}

/** `docker run -i` with the backend's hardening, one per program; timed until the runner reports done. */
function dockerRunOnce(): Promise<number> {
  const start = performance.now()
  const args = [
    'run',
    '--rm',
    '-i',
    '--network',
    'none',
    '--read-only',
    '--cap-drop',
    'ALL',
    '--security-opt',
    'no-new-privileges',
    '--pids-limit',
    '128',
    '--memory',
    '128m',
    '--memory-swap',
    '128m',
    '--tmpfs',
    '/tmp:rw,noexec,nosuid,nodev,size=64m',
    '--init',
    DEFAULT_IMAGE,
  ]
  return untilDone(spawn('docker', args, { stdio: ['pipe', 'pipe', 'ignore'] }), start)
}

function untilDone(child: ReturnType<typeof spawn>, start: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = ''
    child.stdout?.setEncoding('utf8')
    child.stdout?.on('data', (d: string) => {
      text += d
      if (text.includes('"type":"ready"') && !text.includes('sent')) {
        text += 'sent'
        child.stdin?.write(runMessage)
      }
      if (text.includes('"type":"done"')) {
        resolve(performance.now() - start)
        child.stdin?.end()
      }
    })
    child.on('exit', () => reject(new Error('exited before done')))
  })
}

/**
 * The hop's floor: one line echoed by `cat` in a standing hardened container, over a hijacked attach
 * connection like the backend's (host -> engine -> the container's stdin, its stdout -> engine -> host).
 */
async function attachRoundTrips(docker: Docker, runtime?: string): Promise<number[]> {
  const c = await docker.createContainer({
    Image: DEFAULT_IMAGE,
    Entrypoint: ['/usr/bin/cat'],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: true,
    StdinOnce: true,
    Tty: false,
    Labels: { codeact: '1', 'codeact.owner': `bench:${process.pid}` },
    HostConfig: { ...HARDENED, ...(runtime ? { Runtime: runtime } : {}) },
  })
  const samples: number[] = []
  try {
    const stream = (await c.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as unknown as Duplex
    await c.start()
    let waiting: (() => void) | undefined
    stream.on('data', (d: Buffer) => {
      if (d.includes(10)) waiting?.()
    })
    for (let i = 0; i < ECHOES + 10; i++) {
      const start = performance.now()
      await new Promise<void>((resolve) => {
        waiting = resolve
        stream.write('x\n')
      })
      if (i >= 10) samples.push(performance.now() - start) // the first lines warm the engine's path
    }
    stream.end()
  } finally {
    await c.remove({ force: true })
  }
  return samples
}

/** `docker exec` of a fresh runner (new node process) in one standing hardened container, via the API. */
async function dockerExecRuns(docker: Docker): Promise<number[]> {
  const c = await docker.createContainer({
    Image: DEFAULT_IMAGE,
    Entrypoint: ['/usr/bin/sleep', '3600'],
    Env: [],
    Labels: { codeact: '1', 'codeact.owner': `bench:${process.pid}` },
    HostConfig: HARDENED,
  })
  const samples: number[] = []
  try {
    await c.start()
    for (let i = 0; i < BASELINE_RUNS + 1; i++) {
      const start = performance.now()
      const exec = await c.exec({ Cmd: ['/usr/local/bin/node', ...RUNNER_ARGS], AttachStdin: true, AttachStdout: true, AttachStderr: true })
      const stream = (await exec.start({ hijack: true, stdin: true })) as unknown as Duplex
      await new Promise<void>((resolve) => {
        let text = ''
        let sent = false
        stream.on('data', (d: Buffer) => {
          text += d.toString('utf8') // frame headers are noise here; only markers are searched
          if (!sent && text.includes('"type":"ready"')) {
            sent = true
            stream.write(runMessage)
          }
          if (text.includes('"type":"done"')) {
            stream.end()
            resolve()
          }
        })
      })
      if (i > 0) samples.push(performance.now() - start) // the first exec warms the engine's path
    }
  } finally {
    await c.remove({ force: true })
  }
  return samples
}

async function coldRuns(option: { runtime?: string }): Promise<number[]> {
  const cold = createDockerSandbox({ poolSize: 0, ...option })
  const samples: number[] = []
  for (let i = 0; i < COLD_RUNS; i++) samples.push(await timed(() => cold.run(request(BODY), host, never)))
  await cold.close()
  return samples
}

/** Warm-pool runs (the refill between samples, untimed), then a loop of tool calls in one more run. */
async function warmRuns(option: { runtime?: string }): Promise<{ samples: number[]; loopMs: number; gaps: number[]; hits: number }> {
  const warm = createDockerSandbox({ poolSize: 2, ...option })
  await warm.start()
  const samples: number[] = []
  for (let i = 0; i < WARM_RUNS; i++) {
    await warm.warm(2) // the refill is background work: not part of a run
    samples.push(await timed(() => warm.run(request(BODY), host, never)))
  }
  await warm.warm(1)
  const loop = request(`for (let i = 0; i < ${CALLS}; i++) await tools.noop()`)
  // Between one call reaching the host and the next: one round trip plus a turn of the program's loop.
  const gaps: number[] = []
  let last: number | undefined
  const timing: SandboxHost = {
    ...host,
    callTool: async () => {
      const now = performance.now()
      if (last !== undefined) gaps.push(now - last)
      last = now
      return '{"ok":true,"value":null}'
    },
  }
  const loopMs = await timed(() => warm.run(loop, timing, never))
  const hits = warm.poolStats.hits
  await warm.close()
  return { samples, loopMs, gaps, hits }
}

export default async function dockerBench(): Promise<BenchRow[]> {
  const docker = new Docker()
  try {
    await docker.ping()
    await docker.getImage(DEFAULT_IMAGE).inspect()
  } catch {
    return [{ name: 'docker backend', note: 'skipped: no Docker engine or no runner image (make image)' }]
  }
  const rows: BenchRow[] = []

  const cold = await coldRuns({})
  const warm = await warmRuns({})
  const info = (await docker.info()) as { Runtimes?: Record<string, unknown> }
  const gvisor = Object.keys(info.Runtimes ?? {}).includes('runsc')
  const coldGvisor = gvisor ? await coldRuns({ runtime: 'runsc' }) : undefined
  const warmGvisor = gvisor ? await warmRuns({ runtime: 'runsc' }) : undefined

  const echo = await attachRoundTrips(docker)
  const echoGvisor = gvisor ? await attachRoundTrips(docker, 'runsc') : undefined

  const runSamples: number[] = []
  for (let i = 0; i < BASELINE_RUNS; i++) runSamples.push(await dockerRunOnce())
  const execSamples = await dockerExecRuns(docker)

  rows.push(row('docker run per program, trivial program (CLI, same hardening)', runSamples))
  rows.push(row('docker exec of a fresh node runner per program (API)', execSamples))
  rows.push(
    row('cold run, trivial program (docker, no pool)', cold, { baseline: 'docker run per program, trivial program (CLI, same hardening)' }),
  )
  const ECHO = 'floor: one line through a container and back (attach, cat)'
  rows.push(row(ECHO, echo))
  const vsExec = (samples: number[]) => (percentile(samples, 50) / percentile(execSamples, 50)).toFixed(2)
  rows.push(
    row('warm-pool run, trivial program (docker)', warm.samples, {
      baseline: ECHO,
      goal: 'p50 ≤ 5 ms',
      note: `${warm.hits} of ${WARM_RUNS + 1} runs took a warm container; ${vsExec(warm.samples)}× a docker exec per program`,
    }),
  )
  rows.push(
    row('tool call inside a container (sequential, docker)', warm.gaps, {
      baseline: ECHO,
      note: `call to call, ${CALLS} sequential calls; mean ${((warm.loopMs / CALLS) * 1000).toFixed(0)} µs`,
    }),
  )
  if (coldGvisor && warmGvisor && echoGvisor) {
    const ECHO_GVISOR = 'floor: one line through a container and back (attach, cat, gVisor runsc)'
    rows.push(row(ECHO_GVISOR, echoGvisor))
    rows.push(
      row('cold run, trivial program (docker, gVisor runsc, no pool)', coldGvisor, {
        baseline: 'cold run, trivial program (docker, no pool)',
      }),
    )
    const vsRunc = (percentile(warmGvisor.samples, 50) / percentile(warm.samples, 50)).toFixed(2)
    rows.push(
      row('warm-pool run, trivial program (docker, gVisor runsc)', warmGvisor.samples, {
        baseline: ECHO_GVISOR,
        note: `${warmGvisor.hits} of ${WARM_RUNS + 1} runs took a warm container; ${vsRunc}× the runc warm run`,
      }),
    )
    rows.push(
      row('tool call inside a container (sequential, docker, gVisor runsc)', warmGvisor.gaps, {
        baseline: ECHO_GVISOR,
        note: `call to call, ${CALLS} sequential calls; mean ${((warmGvisor.loopMs / CALLS) * 1000).toFixed(0)} µs`,
      }),
    )
  } else {
    rows.push({ name: 'docker, gVisor runsc', note: 'skipped: the engine has no runsc runtime (see docs/docker.md, gVisor)' })
  }
  return rows
}
