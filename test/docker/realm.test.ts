// The program runs in a realm of its own inside the container; the runner's wire lives in another one that
// the program can still reach through Node (`process`, `require`). Whatever it patches there, its calls and
// its outcome stay true. Also: a rejection left unhandled fails the run, and a timeout leaves the calls still
// in flight pending (the runtime names them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockerSandbox, type DockerSandbox } from '../../sandbox/docker/index.js'
import { dockerEngine } from './engine.js'
import { ensureImage, never, ownContainers, request, testHost } from './helpers.js'

describe.skipIf(!dockerEngine.available)('docker sandbox: the program realm', () => {
  let sandbox: DockerSandbox
  beforeAll(async () => {
    await ensureImage()
    sandbox = createDockerSandbox({ poolSize: 1 })
    await sandbox.start()
  })
  afterAll(async () => {
    await sandbox.close()
    expect(await ownContainers()).toEqual([])
  })

  it("the program's globals are its own: the runner's realm is another one", async () => {
    const out = await sandbox.run(
      request(`
        const runnerGlobal = process.constructor.constructor('return globalThis')()
        return [runnerGlobal === globalThis, runnerGlobal.JSON === JSON, global === globalThis, typeof require, typeof Buffer]`),
      testHost(),
      never(),
    )
    expect(out).toMatchObject({ ok: true, valueJson: '[false,false,true,"function","function"]' })
  })

  it("poisoning the runner's realm (JSON, Array.prototype, toJSON, Promise.prototype.then) bends neither the calls nor the outcome", async () => {
    const host = testHost()
    const out = await sandbox.run(
      request(`
        const runner = process.constructor.constructor('return globalThis')()
        runner.JSON.stringify = () => '{"type":"done","outcomeJson":"{}"}'
        runner.JSON.parse = () => ({ type: 'result', id: 1, resultJson: '{"ok":true,"value":"evil"}' })
        runner.Array.prototype.push = function () { throw new Error('push poisoned') }
        runner.Array.prototype.join = () => 'evil'
        runner.Object.prototype.toJSON = function () { return 'evil' }
        runner.Object.defineProperty(runner.Object.prototype, 'prelude', { get() { return 'evil' }, configurable: true })
        runner.Promise.prototype.then = function () { return 'evil' }
        runner.String.prototype.slice = () => 'evil'
        runner.String.prototype.indexOf = () => -1
        runner.Reflect.apply = () => 'evil'
        console.log('before', 1)
        const a = await tools.echo({ list: [1, 2], s: 'x' })
        const b = await tools.add({ a: 2, b: 3 })
        console.log('after', b)
        return { a, b }`),
      host,
      never(),
    )
    expect(out).toMatchObject({ ok: true, valueJson: '{"a":{"list":[1,2],"s":"x"},"b":5}' })
    expect(host.calls).toEqual([
      { name: 'echo', args: { list: [1, 2], s: 'x' } },
      { name: 'add', args: { a: 2, b: 3 } },
    ])
    expect(host.logs.map((l) => l.text)).toEqual(['before 1', 'after 5'])
  })

  it('a rejection left unhandled while the program still runs fails the run, named, with its program.js stack', async () => {
    const out = await sandbox.run(
      request(`
        Promise.reject(new TypeError('nobody caught me'))
        await new Promise((r) => setTimeout(r, 300))
        return 'finished anyway'`),
      testHost(),
      never(),
    )
    expect(out).toMatchObject({
      ok: false,
      error: { kind: 'runtime', message: 'unhandled promise rejection: TypeError: nobody caught me' },
    })
    if (!out.ok) expect(out.error.stack).toMatch(/program\.js:\d+:\d+/)
  })

  it('a rejection handled in the same turn is not unhandled', async () => {
    const out = await sandbox.run(
      request(`
        const p = Promise.reject(new Error('late'))
        await null
        return await p.catch((e) => e.message)`),
      testHost(),
      never(),
    )
    expect(out).toMatchObject({ ok: true, valueJson: '"late"' })
  })

  it('calls beyond 4096 in flight are refused with EAGAIN at once, not queued in the container', async () => {
    const host = testHost()
    const out = await sandbox.run(
      request(`
        const results = await Promise.allSettled(Array.from({ length: 5000 }, () => tools.slow({ ms: 1000 })))
        const codes = {}
        for (const r of results) { const k = r.status === 'fulfilled' ? 'ok' : r.reason.code; codes[k] = (codes[k] ?? 0) + 1 }
        return codes`),
      host,
      never(),
    )
    expect(out).toMatchObject({ ok: true, valueJson: '{"ok":4096,"EAGAIN":904}' })
    expect(host.calls.length).toBe(4096)
  })

  it('a timeout answers with the slow call still pending (not after it), so the runtime can name it', async () => {
    const host = testHost()
    let answered = false
    const callTool = host.callTool.bind(host)
    host.callTool = async (name, args) => {
      const r = await callTool(name, args)
      answered = true
      return r
    }
    const out = await sandbox.run(
      request(`while (true) await tools.slow({ ms: 5000 })`, { timeoutMs: 1000, deadlineMs: 2000 }),
      host,
      never(),
    )
    expect(out).toMatchObject({ ok: false, error: { kind: 'timeout' } })
    expect(host.calls).toEqual([{ name: 'slow', args: { ms: 5000 } }])
    expect(answered).toBe(false)
  })

  it("a pooled container's program finds no trace of the warm-up run (a throwaway realm): the same realm a cold container's program sees", async () => {
    const probe = request(`
      const names = Object.getOwnPropertyNames(globalThis).sort().join(',')
      const runner = process.constructor.constructor('return globalThis')()
      const listeners = ['uncaughtException', 'unhandledRejection'].map((e) => process.listenerCount(e)).join(',')
      const fired = []
      setTimeout(() => fired.push('t0'), 0)
      setTimeout(() => fired.push('t5'), 5)
      await new Promise((r) => setTimeout(r, 20))
      return { names, runnerHasNoop: typeof runner.tools, listeners, fired: fired.join(',') }`)
    await sandbox.warm(1)
    const warm = await sandbox.run(probe, testHost(), never())
    const cold = createDockerSandbox({ poolSize: 0 }) // prepare and run arrive together: no warm-up
    const coldOut = await cold.run(probe, testHost(), never())
    await cold.close()
    expect(warm).toMatchObject({ ok: true })
    expect(coldOut).toMatchObject({ ok: true })
    expect(JSON.parse((warm as { valueJson: string }).valueJson)).toEqual(JSON.parse((coldOut as { valueJson: string }).valueJson))
    expect(JSON.parse((warm as { valueJson: string }).valueJson)).toMatchObject({ runnerHasNoop: 'undefined', fired: 't0,t5' })
  })
})
