/**
 * The messages between the host and the runner in a container (images/runner.mjs): one JSON object per
 * line on the container's stdio, a discriminated union on `type`. Everything the runner sends is untrusted
 * (the program shares its process), so each line is size-capped and validated before anything reads it.
 */
import { z } from 'zod'

/** Host -> runner. */
export type ToRunner =
  /** Asks for `ready` again (sent until it comes: output can miss a fresh attach). */
  | { type: 'hello' }
  /** Sent once after `ready`: the runner compiles the prelude while the container waits in the pool. */
  | { type: 'prepare'; prelude: string }
  /**
   * `nonce` is fresh per run and never enters the program's realm: every line the runner sends after this
   * starts with it, and the host drops the lines that do not (the program can write to fd 1 too).
   */
  | {
      type: 'run'
      runId: string
      nonce: string
      js: string
      toolNames: string[]
      maxOutputBytes: number
      /** The run's wall-clock deadline: the container ends itself a grace after it, host or no host. */
      deadlineMs: number
      /** A session run: the container keeps its realm for the session's next run (only a session's own container). */
      session?: true
      /** Session runs: passed to the prelude as `config.entropy` (seeded Math.random, replayed clock). */
      entropy?: { seed: string; clock?: number[] }
    }
  /** The host's answer to a call: JSON text of a ToolResult. */
  | { type: 'result'; id: number; resultJson: string }
  /** One workspace op (sandbox/workspace/ops.ts), paths already translated to the container's. */
  | { type: 'op'; id: number; op: string; root: string; args: unknown[] }
  | { type: 'cancel'; id: number }

/** One line from the runner is at most this long (tool arguments and values ride in one line). */
export const MAX_LINE_BYTES = 32 * 1024 * 1024

const text = (max: number) => z.string().max(max)
const id = z.number().int().nonnegative()
const code = text(64)

const logEntry = z.object({ level: z.enum(['log', 'info', 'warn', 'error', 'debug']), text: text(1 << 20) })

/** Runner -> host, as validated. */
export const fromRunner = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), node: text(64), uid: z.number().int(), pid: z.number().int() }),
  z.object({ type: z.literal('call'), id, name: text(200), argsJson: text(MAX_LINE_BYTES) }),
  z.object({ type: z.literal('log'), entries: z.array(logEntry).max(10_000) }),
  z.object({ type: z.literal('denial'), code, message: text(1000) }),
  z.object({ type: z.literal('done'), outcomeJson: text(MAX_LINE_BYTES), effects: z.array(text(300)).max(21).optional() }),
  z.object({ type: z.literal('fatal'), message: text(4000) }),
  /** The program left a promise rejection unhandled: the run fails, as in the isolate. */
  z.object({
    type: z.literal('unhandled'),
    error: z.object({ name: text(200), message: text(4000), stack: text(4000).optional() }),
    effects: z.array(text(300)).max(21).optional(),
  }),
  z.object({
    type: z.literal('opResult'),
    id,
    ok: z.boolean(),
    value: z.unknown().optional(),
    error: z.object({ code, message: text(4000) }).optional(),
  }),
])
export type FromRunner = z.infer<typeof fromRunner>

/** What the prelude reports (guest/outcome.ts `Outcome`), checked before it is believed. */
export const preludeOutcome = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    valueJson: z.string().optional(),
    valueNote: text(1000).optional(),
    droppedOutputBytes: z.number().nonnegative(),
    clock: z.array(z.number()).max(1_000_000).optional(),
  }),
  z.object({
    ok: z.literal(false),
    error: z.object({ name: text(200), message: text(4000), stack: text(4000).optional() }),
    droppedOutputBytes: z.number().nonnegative(),
    clock: z.array(z.number()).max(1_000_000).optional(),
  }),
])

/**
 * Splits a byte stream into lines, refusing any line over `maxBytes` (the caller treats that as a
 * protocol violation). Works on Buffers so a multi-byte character split across chunks stays whole.
 */
export class LineSplitter {
  private chunks: Buffer[] = []
  private size = 0
  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0
    for (;;) {
      const nl = chunk.indexOf(10, start)
      if (nl < 0) break
      const piece = chunk.subarray(start, nl)
      if (this.size + piece.length > this.maxBytes) return this.overflow()
      const line = this.size === 0 ? piece : Buffer.concat([...this.chunks, piece])
      this.chunks = []
      this.size = 0
      this.onLine(line.toString('utf8'))
      start = nl + 1
    }
    const rest = chunk.subarray(start)
    if (rest.length === 0) return
    if (this.size + rest.length > this.maxBytes) return this.overflow()
    this.chunks.push(Buffer.from(rest))
    this.size += rest.length
  }

  private overflow(): void {
    this.chunks = []
    this.size = 0
    this.onOverflow()
  }
}

/** Parse and validate one line; undefined when it is not a message (garbage is dropped, never trusted). */
export function parseLine(line: string): FromRunner | undefined {
  if (line.length === 0) return undefined
  let raw: unknown
  try {
    raw = JSON.parse(line)
  } catch {
    return undefined
  }
  const parsed = fromRunner.safeParse(raw)
  return parsed.success ? parsed.data : undefined
}
