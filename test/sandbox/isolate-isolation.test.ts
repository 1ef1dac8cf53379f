/**
 * What a program can reach from inside an isolate: nothing of the host. Only JSON text crosses; every
 * object the program touches (tools, errors, promises) belongs to its own realm; runs share nothing.
 * The cases follow the attempt corpus in shared/notes/sandbox-security.md, section B3.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIsolateSandbox } from '../../sandbox/isolate/index.js'
import type { Sandbox, SandboxOutcome } from '../../sandbox/types.js'
import { RecordingHost, isolateChildPids, never, request } from './fixtures/isolate-host.js'

let sandbox: Sandbox
beforeAll(async () => {
  // No spare warm isolates: sequential runs share one isolate, the hardest case for isolation.
  sandbox = createIsolateSandbox({ warmIsolates: 0 })
  await sandbox.start()
})
afterAll(() => sandbox.close())

async function value(body: string, host = new RecordingHost()): Promise<unknown> {
  const outcome: SandboxOutcome = await sandbox.run(request(body), host, never())
  if (!outcome.ok) throw new Error(`run failed: ${outcome.error.kind}: ${outcome.error.message}`)
  return outcome.valueJson === undefined ? undefined : JSON.parse(outcome.valueJson)
}

/** Every global a fresh context may have: ECMAScript, Intl, WebAssembly and V8's inert console. */
const STANDARD_GLOBALS = new Set(
  (
    'Object Function Array Number parseFloat parseInt Infinity NaN undefined Boolean String Symbol Date Promise RegExp ' +
    'Error AggregateError EvalError RangeError ReferenceError SyntaxError TypeError URIError globalThis JSON Math Intl ' +
    'ArrayBuffer Uint8Array Int8Array Uint16Array Int16Array Uint32Array Int32Array Float32Array Float64Array ' +
    'Uint8ClampedArray BigUint64Array BigInt64Array DataView Map BigInt Set WeakMap WeakSet Proxy Reflect ' +
    'FinalizationRegistry WeakRef decodeURI decodeURIComponent encodeURI encodeURIComponent escape unescape eval ' +
    'isFinite isNaN console SharedArrayBuffer Atomics WebAssembly'
  ).split(' '),
)
/** What the prelude adds, all implemented inside the sandbox (guest/globals.ts): never the host. */
const SANDBOX_GLOBALS = (
  'tools ToolCallError setTimeout clearTimeout setInterval clearInterval queueMicrotask URL URLSearchParams ' +
  'TextEncoder TextDecoder atob btoa structuredClone'
).split(' ')

describe('isolate sandbox: nothing of the host is reachable', () => {
  it("has only standard globals and the sandbox's own: no process, require, fetch or isolated-vm objects", async () => {
    const names = (await value('return Object.getOwnPropertyNames(globalThis)')) as string[]
    expect(names.filter((n) => !STANDARD_GLOBALS.has(n)).sort()).toEqual([...SANDBOX_GLOBALS].sort())
    expect(names).not.toContain('WebAssembly')
    expect(
      await value(`return [typeof process, typeof require, typeof module, typeof setImmediate, typeof fetch, typeof Buffer,
      typeof $0, typeof $2, typeof performance, typeof crypto]`),
    ).toEqual(Array(10).fill('undefined'))
  })

  it('finds no process through constructor chains from this, functions, tools, errors or promises', async () => {
    const result = await value(`
      const probe = (f) => { try { return f.constructor.constructor('return typeof process')() } catch (e) { return 'threw ' + e.name } }
      let caught
      try { await tools.fail({}) } catch (e) { caught = e }
      const pending = tools.noop()
      await pending
      return {
        fn: probe(function () {}),
        tool: probe(tools.echo),
        toolProto: Object.getPrototypeOf(tools.echo) === Function.prototype,
        error: probe(caught),
        errorRealm: caught.constructor.constructor('return globalThis')() === globalThis,
        promise: pending instanceof Promise && probe(pending),
        global: typeof globalThis.constructor.constructor('return this')().process,
      }`)
    expect(result).toEqual({
      fn: 'undefined',
      tool: 'undefined',
      toolProto: true,
      error: 'undefined',
      errorRealm: true,
      promise: 'undefined',
      global: 'undefined',
    })
  })

  it('exposes no caller, arguments or source of the host behind a tool function', async () => {
    const result = await value(`
      const f = tools.echo
      const read = (k) => { try { return typeof f[k] } catch (e) { return 'threw' } }
      return [read('caller'), read('arguments'), Object.isFrozen(f), /isolated|node_modules|[/]work[/]/.test(String(f))]`)
    expect(result).toEqual(['threw', 'threw', true, false])
  })

  it('refuses dynamic import', async () => {
    expect(await value(`try { await import('node:fs'); return 'loaded' } catch (e) { return 'refused' }`)).toBe('refused')
  })

  it('shows no host frames or values to a custom Error.prepareStackTrace', async () => {
    const frames = (await value(`
      Error.prepareStackTrace = (e, sites) => sites.map((s) => [s.getFileName() ?? '', typeof s.getFunction(), typeof s.getThis()])
      let stack
      try { await tools.fail({}) } catch (e) { stack = e.stack }
      const inner = new Error('here').stack
      // Frames below a guest callback that the bridge itself invoked (argument serialisation).
      let fromToJSON
      await tools.echo({ toJSON() { fromToJSON = new Error('in toJSON').stack; return 1 } })
      return [...stack, ...inner, ...fromToJSON]`)) as [string, string, string][]
    expect(frames.length).toBeGreaterThan(0)
    for (const [file, fn, self] of frames) {
      expect(['program.js', 'codeact-prelude.js', 'codeact-glue.js', '']).toContain(file)
      if (file !== 'program.js') expect([fn, self]).toEqual(['undefined', 'undefined'])
    }
  })

  it('does not let a poisoned JSON, Array, Promise, Map or Function.prototype bend the bridge', async () => {
    const host = new RecordingHost()
    const result = await value(
      `
      JSON.stringify = () => '"hijacked"'
      JSON.parse = () => 'hijacked'
      Array.prototype.push = function () { throw new Error('push') }
      Map.prototype.get = () => undefined
      Map.prototype.set = function () { return this }
      Function.prototype.call = Function.prototype.apply = function () { throw new Error('call') }
      Promise.prototype.then = function () { throw new Error('then') }
      console.log('still', 'formatted')
      return { back: 'x' + (await tools.echo({ a: [1, 2] })).a.length }`,
      host,
    ).catch((e: Error) => e.message)
    // The last `await` itself uses the poisoned `then` only through the language's own PerformPromiseThen.
    expect(host.raw).toEqual(['{"a":[1,2]}'])
    expect(host.logs).toEqual([{ level: 'log', text: 'still formatted' }])
    expect(result).toEqual({ back: 'x2' })
  })

  it('passes arguments as JSON only: functions and symbols are dropped, a BigInt is refused', async () => {
    const host = new RecordingHost()
    const result = await value(
      `
      const echoed = await tools.echo({ keep: 1, f() {}, s: Symbol('x') })
      let refused
      try { await tools.echo({ n: 1n }) } catch (e) { refused = e.code }
      return { echoed, refused }`,
      host,
    )
    expect(result).toEqual({ echoed: { keep: 1 }, refused: 'EINVAL' })
    expect(host.raw[0]).toBe('{"keep":1}')
    expect(host.raw[1]?.startsWith('!')).toBe(true)
  })

  it('hands back a __proto__ key as text without touching the host prototype', async () => {
    const outcome = await sandbox.run(request(`return JSON.parse('{"__proto__":{"polluted":1}}')`), new RecordingHost(), never())
    expect(outcome).toMatchObject({ ok: true, valueJson: '{"__proto__":{"polluted":1}}' })
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('isolate sandbox: a run never sees state from another run', () => {
  it('starts each run with fresh globals and intrinsics', async () => {
    await value(`
      globalThis.secret = 'run one'
      Object.prototype.polluted = 'yes'
      Array.prototype.extra = 1
      JSON.stringify = () => '"hijacked"'
      Error.prepareStackTrace = () => 'patched stack'
      return 1`)
    const result = await value(`
      return {
        secret: typeof globalThis.secret,
        polluted: ({}).polluted === undefined,
        extra: [].extra === undefined,
        json: JSON.stringify({ a: 1 }),
        stack: typeof Error.prepareStackTrace,
        echo: await tools.echo({ fine: true }),
      }`)
    expect(result).toEqual({ secret: 'undefined', polluted: true, extra: true, json: '{"a":1}', stack: 'undefined', echo: { fine: true } })
  })

  it('does not let a tool answer for an earlier run reach a later one', async () => {
    const host = new RecordingHost()
    // The first run returns while its slow call is still pending; the answer arrives during the second run.
    const first = await sandbox.run(
      request(`tools.slow({ ms: 100, value: 'late' }).then((v) => { globalThis.leak = v }); return 1`),
      host,
      never(),
    )
    expect(first).toMatchObject({ ok: true, valueJson: '1' })
    const second = await value(
      `await tools.slow({ ms: 200, value: 'own' }); return [typeof globalThis.leak, Object.keys(globalThis).length]`,
    )
    expect(second).toEqual(['undefined', 0])
  })
})

describe('isolate sandbox: the process boundary', () => {
  it('never loads isolated-vm into the caller; the child has it, and an empty environment', async () => {
    await value('return 1')
    expect(readFileSync('/proc/self/maps', 'utf8')).not.toMatch(/isolated_vm/)
    const pids = isolateChildPids()
    expect(pids.length).toBeGreaterThan(0)
    for (const pid of pids) {
      expect(readFileSync(`/proc/${pid}/maps`, 'utf8')).toMatch(/isolated_vm/)
      // Nothing of the caller's, nor of Node's IPC (the protocol is frames on a pipe): glibc's arena count alone (supervisor.ts).
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean)
      expect(env.map((kv) => kv.split('=')[0]).sort()).toEqual(['MALLOC_ARENA_MAX'])
      expect(env).toContain('MALLOC_ARENA_MAX=2')
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toContain('--no-node-snapshot')
    }
  })
})
