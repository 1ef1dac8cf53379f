/**
 * The host's reading of the runner's lines (the messages themselves: wire-messages.ts, shared with the
 * runner in sandbox/docker/runner/). Everything the runner sends is untrusted (the program shares its
 * process), so each line is size-capped and validated before anything reads it.
 */
import { z } from 'zod'
import {
  DENIAL_TEXT_MAX,
  EFFECT_TEXT_MAX,
  ERROR_NAME_MAX,
  ERROR_TEXT_MAX,
  LOG_ENTRIES_MAX,
  LOG_LEVELS,
  LOG_TEXT_MAX,
  MAX_EFFECTS,
  MAX_LINE_BYTES,
  type FromRunner,
  type LogLevel,
} from './wire-messages.js'

export type { FromRunner, ToRunner } from './wire-messages.js'
export { MAX_LINE_BYTES } from './wire-messages.js'

const text = (max: number) => z.string().max(max)
const id = z.number().int().nonnegative()
const code = text(64)

const logEntry = z.object({ level: z.enum(LOG_LEVELS as [LogLevel, ...LogLevel[]]), text: text(LOG_TEXT_MAX) })
const effects = z
  .array(text(EFFECT_TEXT_MAX))
  .max(MAX_EFFECTS + 1)
  .optional()
const runnerError = z.object({ name: text(ERROR_NAME_MAX), message: text(ERROR_TEXT_MAX), stack: text(ERROR_TEXT_MAX).optional() })

/** Runner -> host, as validated. */
export const fromRunner = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), node: text(64), uid: z.number().int(), pid: z.number().int() }),
  z.object({ type: z.literal('call'), id, name: text(200), argsJson: text(MAX_LINE_BYTES) }),
  z.object({ type: z.literal('log'), entries: z.array(logEntry).max(LOG_ENTRIES_MAX) }),
  z.object({ type: z.literal('denial'), code, message: text(DENIAL_TEXT_MAX) }),
  z.object({ type: z.literal('done'), outcomeJson: text(MAX_LINE_BYTES), effects }),
  z.object({ type: z.literal('fatal'), message: text(ERROR_TEXT_MAX) }),
  /** The program left a promise rejection unhandled: the run fails, as in the isolate. */
  z.object({ type: z.literal('unhandled'), error: runnerError, effects }),
  z.object({
    type: z.literal('opResult'),
    id,
    ok: z.boolean(),
    value: z.unknown().optional(),
    error: z.object({ code, message: text(ERROR_TEXT_MAX) }).optional(),
  }),
])
// The validator and the shared type say the same thing, both ways (a drift fails the type check).
type Validated = z.infer<typeof fromRunner>
const sameBothWays: [Validated extends FromRunner ? true : false, FromRunner extends Validated ? true : false] = [true, true]
void sameBothWays

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
    error: z.object({ name: text(200), message: text(4000), stack: text(4000).optional(), compile: z.literal(true).optional() }),
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
