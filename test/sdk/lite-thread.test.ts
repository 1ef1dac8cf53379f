/**
 * A checker's thread that only prepares check-off programs never loads TypeScript (sdk/lite/): the real
 * thread (dist/sdk/typecheck-worker.js), started as the pool starts it with the check off, is sent what a
 * check-off run sends (normalise + shape, the output's shape, namespaces) and then asked what it loaded.
 * The same thread compiles check-off programs in the same request (oxc behind Babel's gate, esbuild
 * otherwise) still without TypeScript; a text past the lite parsers falls back to TypeScript, and so does a
 * check — so the probe can see a load.
 */
import { Worker } from 'node:worker_threads'
import { afterEach, describe, expect, it } from 'vitest'

const WORKER = new URL('../../dist/sdk/typecheck-worker.js', import.meta.url).href

// Runs in the thread before the checker's module: records every `typescript` module resolved or cached.
const PROBE = `
const { parentPort } = require('node:worker_threads')
const Module = require('node:module')
const requested = []
const load = Module._load
Module._load = function (request) { if (/typescript/.test(request)) requested.push(request); return load.apply(this, arguments) }
parentPort.on('message', (m) => {
  if (m && m.probe) parentPort.postMessage({ probe: true, requested, cached: Object.keys(require.cache).filter((k) => /[\\\\/]typescript[\\\\/]/.test(k)) })
})
import(${JSON.stringify(WORKER)})
`

type Message = Record<string, unknown>
let worker: Worker | undefined
afterEach(async () => {
  await worker?.terminate()
})

function start(): { next: (test: (m: Message) => boolean) => Promise<Message>; send: (m: Message) => void } {
  const w = new Worker(PROBE, { eval: true, workerData: { warmChecker: false } })
  worker = w
  const seen: Message[] = []
  const waiting: { test: (m: Message) => boolean; resolve: (m: Message) => void }[] = []
  w.on('message', (m: Message) => {
    const i = waiting.findIndex((x) => x.test(m))
    if (i >= 0) waiting.splice(i, 1)[0]!.resolve(m)
    else seen.push(m)
  })
  return {
    send: (m) => w.postMessage(m),
    next: (test) => {
      const i = seen.findIndex(test)
      if (i >= 0) return Promise.resolve(seen.splice(i, 1)[0]!)
      return new Promise((resolve) => waiting.push({ test, resolve }))
    },
  }
}

async function probe(t: ReturnType<typeof start>): Promise<{ requested: string[]; cached: string[] }> {
  t.send({ probe: true, id: -1 })
  return (await t.next((m) => m.probe === true)) as unknown as { requested: string[]; cached: string[] }
}

describe("a check-off checker's thread", () => {
  it('prepares programs without loading TypeScript, and loads it for the first check', async () => {
    const t = start()
    await t.next((m) => m.ready === true)
    t.send({ id: 1, source: 'const n: number = await tools.add({ a: 1 })\nn', normalise: { allowNodeImports: false } })
    // With no check to follow, the prepared program rides in the answer: one message.
    expect(await t.next((m) => m.id === 1 && 'diagnostics' in m)).toMatchObject({
      ok: true,
      diagnostics: [],
      prepared: { normalised: { text: 'const n: number = await tools.add({ a: 1 })\nreturn await (n)' }, shape: { ok: true } },
    })
    t.send({
      id: 2,
      task: { kind: 'shape', text: '(async function () {\n"use strict";\n}); evil(); (function () {\n});\n', language: 'js' },
    })
    expect(await t.next((m) => m.id === 2)).toMatchObject({ parsed: { shape: { ok: false } } })
    t.send({ id: 3, task: { kind: 'namespaces', source: 'namespace A { export const x = 1 }\nA.x' } })
    expect(await t.next((m) => m.id === 3)).toMatchObject({ parsed: { spans: [{ start: 0, end: 34 }] } })
    // Compiled in the same request, without TypeScript: oxc behind Babel's gate, esbuild for what it does not pass.
    const compile = (id: number, source: string) => t.send({ id, source, normalise: { allowNodeImports: false, compile: true } })
    compile(5, 'const xs: number[] = [1, 2]\nreturn xs.map((x) => x * 2)')
    expect(await t.next((m) => m.id === 5 && 'diagnostics' in m)).toMatchObject({
      ok: true,
      prepared: { compiled: { ok: true, by: 'oxc' } },
    })
    compile(6, 'namespace N { export const a = 1 }\nreturn N.a')
    expect(await t.next((m) => m.id === 6 && 'diagnostics' in m)).toMatchObject({
      ok: true,
      prepared: { compiled: { ok: true, by: 'esbuild' } },
    })
    compile(7, `return ${'['.repeat(300)}1${']'.repeat(300)}`)
    expect(await t.next((m) => m.id === 7 && 'diagnostics' in m)).toMatchObject({
      ok: true,
      prepared: { compiled: { ok: true, by: 'esbuild' } },
    })
    expect(await probe(t)).toMatchObject({ requested: [], cached: [] })

    // A text past the lite parsers' stacks falls back to TypeScript's path (loaded then: 'warmed' restarts the budget).
    compile(8, `return ${Array(50_000).fill('1').join('+')}`)
    expect(await t.next((m) => m.id === 8 && 'warmed' in m)).toMatchObject({ warmed: true })
    expect(await t.next((m) => m.id === 8 && 'diagnostics' in m)).toMatchObject({
      ok: true,
      prepared: { shape: { ok: true }, compiled: { ok: true, by: 'esbuild' } },
    })

    t.send({ id: 4, declarations: 'declare const x: number', source: 'return x' })
    expect(await t.next((m) => m.id === 4 && 'diagnostics' in m)).toMatchObject({ ok: true })
    const after = await probe(t)
    // sdk/ts-load.ts resolves `typescript/package.json` and compiles the compiler itself (its code cache), so
    // the load shows as that request; a plain `require('typescript')` would show as itself and in require.cache.
    expect(after.requested.some((r) => /^typescript(\/|$)/.test(r))).toBe(true)
  }, 120_000)
})
