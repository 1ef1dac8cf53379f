/**
 * The floors every figure is printed beside, measured in the same run: isolated-vm in the bench's own process
 * (no process boundary, no lockdown, no prelude: what an in-process runtime pays), a bare IPC round trip
 * between two Node processes (and, as information, the same over the isolate child's framed pipe), a fresh
 * worker_threads Worker, a fresh `--no-node-snapshot` child. The bench
 * runs only its own trivial programs in its process; codeact itself never runs a program in the host.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { Worker } from 'node:worker_threads'
import type { Readable, Writable } from 'node:stream'
import ivm from 'isolated-vm'
import { encodeFrame } from '../sandbox/isolate/frame.js'
import { FrameReader, KINDS_FROM_CHILD } from '../sandbox/isolate/frame-reader.js'
import { M } from '../sandbox/isolate/protocol.js'
import { sample } from './measure.js'

/** A warm isolate in this process: a fresh context per run, compile, run, await the value (copied out). */
export async function ivmInHost(runs: number): Promise<number[]> {
  const isolate = new ivm.Isolate({ memoryLimit: 128 })
  const once = async () => {
    const context = await isolate.createContext()
    const script = await isolate.compileScript('(async function () { return 1 + 1 })()')
    const value: unknown = await script.run(context, { promise: true, copy: true })
    script.release()
    context.release()
    if (value !== 2) throw new Error('isolated-vm floor: wrong value')
  }
  for (let i = 0; i < 50; i++) await once()
  const samples = await sample(runs, once)
  isolate.dispose()
  return samples
}

/** A fresh Worker per run that posts the trivial program's value. */
export async function freshWorker(runs: number): Promise<number[]> {
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const worker = new Worker('require("node:worker_threads").parentPort.postMessage(1 + 1)', { eval: true, env: {} })
      worker.once('message', () => void worker.terminate().then(() => resolve()))
      worker.once('error', reject)
    })
  await sample(3, once)
  return sample(runs, once)
}

/** A fresh `--no-node-snapshot` child with an IPC channel, until its first message (what a cold isolate child pays before loading isolated-vm). */
export async function freshChild(runs: number): Promise<number[]> {
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ['--no-node-snapshot', '-e', 'process.send(1); process.disconnect()'], {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        serialization: 'advanced',
        env: {},
      })
      child.once('error', reject)
      child.once('message', () => child.once('exit', () => resolve()))
    })
  await sample(2, once)
  return sample(runs, once)
}

/** A bare echo child over IPC (the same serialization the isolate child uses), for round trips interleaved with a measurement. */
export class IpcPeer {
  readonly #child: ChildProcess

  constructor() {
    this.#child = spawn(process.execPath, ['-e', "process.on('message', (m) => process.send(m))"], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'advanced',
      env: {},
    })
  }

  /** Milliseconds for `n` sequential round trips of a tool-result-sized message. */
  async roundTrips(n: number): Promise<number> {
    const start = performance.now()
    for (let i = 0; i < n; i++) {
      await new Promise<void>((resolve) => {
        this.#child.once('message', () => resolve())
        // The shape of the isolate protocol's answer message (sandbox/isolate/protocol.ts).
        this.#child.send([1, 1, [[i, '{"ok":true,"value":null}']]])
      })
    }
    return performance.now() - start
  }

  close(): void {
    this.#child.kill()
  }
}

/**
 * A bare peer on the isolate child's transport (information beside the IPC floor): a pipe on fd 3 and the
 * protocol's frames (sandbox/isolate/frame.ts). Each round trip is a tool answer's 'result' frame out and a
 * call's 'call' frame back, each decoded on arrival: what the channel itself costs a sequential tool call.
 */
export class FramePeer {
  readonly #child: ChildProcess
  readonly #channel: Readable & Writable
  #answered: () => void = () => {}

  constructor() {
    const frame = new URL('../sandbox/isolate/frame.js', import.meta.url).href
    const reads = new URL('../sandbox/isolate/frame-reader.js', import.meta.url).href
    const echo = `import { Socket } from 'node:net'
import { decodeToChild, encodeFrame } from ${JSON.stringify(frame)}
import { FrameReader, KINDS_TO_CHILD } from ${JSON.stringify(reads)}
const s = new Socket({ fd: 3, readable: true, writable: true })
const r = new FrameReader(KINDS_TO_CHILD, (b) => {
  const d = decodeToChild(b)
  if (d.ok && d.message[0] === ${M.result}) s.write(encodeFrame([${M.call}, d.message[1], [[d.message[2][0][0] + 1, 'noop', '{}']], undefined]))
}, () => process.exit(1))
s.on('data', (c) => r.push(c))
s.on('close', () => process.exit(0))`
    this.#child = spawn(process.execPath, ['--input-type=module', '-e', echo], { stdio: ['ignore', 'ignore', 'inherit', 'pipe'], env: {} })
    this.#channel = this.#child.stdio[3] as Readable & Writable
    const reader = new FrameReader(
      KINDS_FROM_CHILD,
      () => this.#answered(),
      (e) => {
        throw new Error(`frame peer: ${e}`)
      },
    )
    this.#channel.on('data', (chunk: Buffer) => reader.push(chunk))
  }

  /** Milliseconds for `n` sequential round trips. */
  async roundTrips(n: number): Promise<number> {
    const start = performance.now()
    for (let i = 0; i < n; i++) {
      await new Promise<void>((resolve) => {
        this.#answered = resolve
        this.#channel.write(encodeFrame([M.result, 1, [[i, '{"ok":true,"value":null}']]]))
      })
    }
    return performance.now() - start
  }

  close(): void {
    this.#child.kill()
  }
}
