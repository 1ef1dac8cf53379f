/**
 * What the seam suite sends a backend: programs compiled by the project's own pipeline (a session's
 * through its rewrite first), requests with the runtime's limits, and a host that records every call as it
 * arrives, with its JSON text.
 */
import { compile, type CompiledProgram } from '../../../runtime/compile.js'
import { rewriteSessionProgram } from '../../../program/session-text.js'
import type { JsonValue, LogEntry } from '../../../vocabulary/types.js'
import type { SandboxHost, SandboxLimits, SandboxRunRequest, SandboxSessionRef } from '../../../sandbox/types.js'

export const TOOLS = ['echo', 'add', 'fail', 'slow'] as const

export const LIMITS: SandboxLimits = { timeoutMs: 10_000, deadlineMs: 60_000, memoryMb: 128, maxOutputBytes: 64 * 1024 }

/** A program body through `compile()`, as the runtime's runs are; a session body through its rewrite first. */
export async function compiled(body: string, session = false): Promise<CompiledProgram> {
  const outcome = await compile(session ? rewriteSessionProgram(body).text : body)
  if (!outcome.ok) throw new Error(`the suite's own program does not compile: ${outcome.error.message}`)
  return outcome.program
}

let runs = 0
export interface RequestOptions {
  limits?: Partial<SandboxLimits>
  session?: SandboxSessionRef
  seed?: string
  clock?: number[]
}

export async function request(body: string, options: RequestOptions = {}): Promise<SandboxRunRequest> {
  const program = await compiled(body, options.session !== undefined)
  return {
    runId: `seam_${process.pid}_${++runs}`,
    js: program.js,
    toolNames: TOOLS,
    limits: { ...LIMITS, ...options.limits },
    ...(options.session
      ? { session: options.session, entropy: { seed: options.seed ?? 'seam', ...(options.clock ? { clock: options.clock } : {}) } }
      : {}),
  }
}

export interface RecordingHost extends SandboxHost {
  /** Every call in the order it reached the host, its arguments as the JSON text that crossed. */
  calls: { name: string; argsJson: string }[]
  logs: LogEntry[]
  /** Resolves when the host has seen `n` calls. */
  called(n: number): Promise<void>
}

/** Tools: echo (its args), add (a + b), fail (EACCES), slow (answers `id` after `ms`). */
export function recordingHost(): RecordingHost {
  const waiting: { n: number; resolve: () => void }[] = []
  const host: RecordingHost = {
    calls: [],
    logs: [],
    log: (entries) => void host.logs.push(...entries),
    called: (n) => (host.calls.length >= n ? Promise.resolve() : new Promise((resolve) => waiting.push({ n, resolve }))),
    async callTool(name, argsJson) {
      host.calls.push({ name, argsJson })
      for (const w of waiting) if (host.calls.length >= w.n) w.resolve()
      const args = JSON.parse(argsJson) as Record<string, JsonValue>
      if (name === 'slow') await new Promise((r) => setTimeout(r, Number(args.ms ?? 100)).unref())
      return JSON.stringify(answer(name, args))
    },
  }
  return host
}

function answer(name: string, args: Record<string, JsonValue>) {
  switch (name) {
    case 'echo':
      return { ok: true, value: args }
    case 'add':
      return { ok: true, value: Number(args.a) + Number(args.b) }
    case 'slow':
      return { ok: true, value: args.id ?? 'slow done' }
    case 'fail':
      return { ok: false, error: { code: 'EACCES', message: 'denied by the test host' } }
    default:
      return { ok: false, error: { code: 'ENOSYS', message: `no tool ${name}` } }
  }
}

export function never(): AbortSignal {
  return new AbortController().signal
}
