/**
 * The isolate protocol's wire form (sandbox/isolate/frame.ts, frame-reader.ts): every message kind comes back from its frame
 * exactly as V8's serializer (the IPC channel this replaced) brought it back — astral characters, lone
 * surrogates, empty and 32 MB strings included — whatever chunks the stream cuts the frames into; and the
 * reader refuses what a broken child could send (an oversized length, an empty frame, trailing bytes, a
 * string running past its frame) as an error value, never a throw.
 */
import { deserialize, serialize } from 'node:v8'
import { describe, expect, it } from 'vitest'
import { FrameReader, KINDS_FROM_CHILD, KINDS_TO_CHILD, MAX_FRAME_BYTES } from '../../sandbox/isolate/frame-reader.js'
import { decodeFromChild, decodeToChild, encodeFrame } from '../../sandbox/isolate/frame.js'
import { type FromChild, M, type ToChild } from '../../sandbox/isolate/protocol.js'

const UNICODE = 'ascii é ß 中文 😀𝄞 \ud800 lone high, lone low \udfff, reversed \udc00\ud800, nul \u0000 end'
const LIMITS = { timeoutMs: 5000, deadlineMs: 6000, memoryMb: 128, maxOutputBytes: 1 << 20 }

const TO_CHILD: ToChild[] = [
  [M.run, 1, `(async function () { return "${UNICODE}" })`, ['echo', 'noop'], LIMITS, undefined, undefined],
  [M.run, 2 ** 40, '', [], LIMITS, { id: `s-${UNICODE}`, realm: 'existing' }, { seed: UNICODE, clock: [1, -3, 1.5e12] }],
  [
    M.result,
    3,
    [
      [0, '{"ok":true,"value":null}'],
      [7, UNICODE],
      [2 ** 53 - 1, ''],
    ],
  ],
  [M.result, 4, []],
  [M.abort, 5],
  [M.endSession, UNICODE],
]

const FROM_CHILD: FromChild[] = [
  [M.ready, 12345],
  [
    M.call,
    1,
    [
      [0, 'echo', `{"s":"${UNICODE}"}`],
      [1, 'noop', ''],
    ],
    undefined,
  ],
  [
    M.call,
    1,
    [],
    [
      { level: 'warn', text: UNICODE },
      { level: 'debug', text: '' },
    ],
  ],
  [
    M.log,
    2,
    [
      { level: 'log', text: UNICODE },
      { level: 'info', text: 'i' },
      { level: 'error', text: 'e' },
    ],
  ],
  [M.done, 3, { ok: true, valueJson: `"${UNICODE}"`, valueNote: UNICODE, droppedOutputBytes: 7, clock: [1, 2] }, undefined, 0.25],
  [M.done, 3, { ok: true, valueJson: undefined, droppedOutputBytes: 0 }, [{ level: 'log', text: UNICODE }], undefined],
  [
    M.done,
    4,
    { ok: false, error: { kind: 'timeout', budget: 'deadline', message: UNICODE, stack: UNICODE }, droppedOutputBytes: 1 },
    undefined,
    12,
  ],
]

/** What V8's serializer gives back for a message: the behaviour the frames keep. */
const viaV8 = <T>(message: T): T => deserialize(serialize(message)) as T

const body = (frame: Buffer) => frame.subarray(4)

function decodedOf<T>(decoded: { ok: true; message: T } | { ok: false; error: string }): T {
  if (!decoded.ok) throw new Error(`did not decode: ${decoded.error}`)
  return decoded.message
}

/** Every frame body `chunks` carry, and the reader's error if any. */
function readAll(chunks: Buffer[], maxBytes?: number): { bodies: Buffer[]; error: string | undefined } {
  const bodies: Buffer[] = []
  let error: string | undefined
  const reader = new FrameReader(
    new Set([...KINDS_FROM_CHILD, ...KINDS_TO_CHILD]),
    (b) => bodies.push(Buffer.from(b)),
    (e) => {
      error = e
    },
    maxBytes,
  )
  for (const chunk of chunks) reader.push(chunk)
  return { bodies, error }
}

describe('frames: messages round-trip as V8 serialization did', () => {
  it.each(TO_CHILD.map((m) => [m[0], m] as const))('to the child, kind %i', (_, message) => {
    expect(decodedOf(decodeToChild(body(encodeFrame(message))))).toStrictEqual(viaV8(message))
  })

  it.each(FROM_CHILD.map((m) => [m[0], m] as const))('from the child, kind %i', (_, message) => {
    expect(decodedOf(decodeFromChild(body(encodeFrame(message))))).toStrictEqual(viaV8(message))
  })

  it('a lone surrogate stays a lone surrogate (UTF-8 would make it U+FFFD), and well-formed text goes as UTF-8', () => {
    const [, , answers] = decodedOf(decodeToChild(body(encodeFrame([M.result, 1, [[0, 'a\ud800b']]])))) as [
      number,
      number,
      [number, string][],
    ]
    expect(answers[0]![1]).toBe('a\ud800b')
    const utf8 = encodeFrame([M.result, 1, [[0, '😀é']]])
    expect(utf8.includes(Buffer.from('😀é', 'utf8'))).toBe(true)
  })

  it('empty and 32 MB strings, ASCII and not', () => {
    const big = 'x'.repeat(32 << 20)
    const wide = '中'.repeat(8 << 20)
    for (const text of ['', big, wide, `${big}\ud800`]) {
      const message: FromChild = [M.call, 1, [[0, 'echo', text]], [{ level: 'log', text }]]
      const back = decodedOf(decodeFromChild(body(encodeFrame(message))))
      expect(back[0] === M.call && back[2][0]![2] === text && back[3]![0]!.text === text).toBe(true)
    }
  })
})

describe('frames: the reader cuts any chunking into the frames that were written', () => {
  const frames = [...TO_CHILD, ...FROM_CHILD].map((m) => encodeFrame(m))
  const stream = Buffer.concat(frames)

  const expected = frames.map((f) => body(f).toString('hex'))

  it('split into two chunks at every byte boundary of the stream', () => {
    const wrong: number[] = []
    for (let at = 0; at <= stream.length; at++) {
      const { bodies, error } = readAll([stream.subarray(0, at), stream.subarray(at)])
      const got = bodies.map((b) => b.toString('hex'))
      if (error !== undefined || got.length !== expected.length || got.some((g, i) => g !== expected[i])) wrong.push(at)
    }
    expect(wrong).toEqual([])
  })

  it('one byte at a time, and all frames in one chunk', () => {
    const bytes = [...stream].map((b) => Buffer.from([b]))
    expect(readAll(bytes).bodies).toStrictEqual(frames.map(body))
    expect(readAll([stream]).bodies).toStrictEqual(frames.map(body))
  })
})

describe('frames: what a broken child sends is an error value', () => {
  it('a length above the bound is refused from its header alone, before any of its body arrives', () => {
    const header = Buffer.alloc(4)
    header.writeUInt32LE(4_000_000_000)
    const { bodies, error } = readAll([encodeFrame([M.ready, 1]), header])
    expect(bodies).toHaveLength(1)
    expect(error).toMatch(/a frame of 4000000000 bytes/)
    expect(MAX_FRAME_BYTES).toBeLessThan(4_000_000_000)
    expect(readAll([encodeFrame([M.log, 1, [{ level: 'log', text: 'x'.repeat(100) }]])], 64).error).toMatch(/more than the 64/)
  })

  it('garbage is refused at its fifth byte (the kind), not after the gigabyte its first four claim', () => {
    const garbage = Buffer.from('this is not a frame')
    expect(garbage.readUInt32LE(0)).toBeLessThan(MAX_FRAME_BYTES)
    const bodies: Buffer[] = []
    let error: string | undefined
    const reader = new FrameReader(
      KINDS_FROM_CHILD,
      (b) => bodies.push(b),
      (e) => {
        error = e
      },
    )
    reader.push(encodeFrame([M.run, 1, '', [], LIMITS, undefined, undefined]).subarray(0, 5))
    expect(error).toMatch(/unknown kind 0/)
    expect(readAll([garbage]).error).toMatch(/unknown kind 32/)
  })

  it('an empty frame, and nothing read after the first error', () => {
    const { bodies, error } = readAll([Buffer.alloc(4), encodeFrame([M.ready, 1])])
    expect(error).toMatch(/empty frame/)
    expect(bodies).toHaveLength(0)
  })

  it('bodies that do not decode: unknown kind, a kind of the other direction, trailing bytes, a string past the end, bad JSON', () => {
    const ready = body(encodeFrame([M.ready, 1]))
    const run = body(encodeFrame(TO_CHILD[0]!))
    const done = Buffer.from(body(encodeFrame(FROM_CHILD[4]!)))
    // The outcome's JSON text (after kind, id, the value's string): its last byte made a syntax error.
    const badJson = Buffer.from(done)
    badJson[badJson.indexOf('}', badJson.indexOf('"droppedOutputBytes"'))] = 0x20
    const cases: Buffer[] = [
      Buffer.from([99]),
      run,
      Buffer.concat([ready, Buffer.from([0])]),
      ready.subarray(0, 5),
      Buffer.concat([
        Buffer.from([M.call]),
        Buffer.alloc(8),
        Buffer.from([1, 0, 0, 0]),
        Buffer.alloc(8),
        Buffer.from([0, 255, 255, 255, 127]),
      ]),
      Buffer.concat([Buffer.from([M.log]), Buffer.alloc(8), Buffer.from([0, 1, 0, 0, 0, 9])]),
      badJson,
    ]
    for (const bad of cases) {
      const decoded = decodeFromChild(bad)
      expect(decoded.ok, bad.toString('hex').slice(0, 40)).toBe(false)
    }
    expect(decodeToChild(ready).ok).toBe(false)
  })
})
