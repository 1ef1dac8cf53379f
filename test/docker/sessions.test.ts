// Sessions on the Docker backend, at the sandbox seam: one container per session, kept between its runs and
// never shared; its realm's live objects persist; a realm whose container is gone answers `session_lost`
// without running anything; endSession and close remove the containers (Docker is asked); a replay with the
// recorded seed and clock rebuilds the same randomness and times. Under runc and gVisor (runsc).
import Docker from 'dockerode'
import { spawn } from 'node:child_process'
import os from 'node:os'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockerSandbox, type DockerSandbox } from '../../sandbox/docker/index.js'
import { reapOrphans } from '../../sandbox/docker/reaper.js'
import type { SandboxOutcome, SandboxRunRequest } from '../../sandbox/types.js'
import { dockerRuntimeCases } from './engine.js'
import { bundleFixture, ensureImage, never, ownContainers, request, testHost, type TestHost } from './helpers.js'

/** Containers of this process named for a session (`codeact-session-<id>-<random>`), by session id. */
async function sessionContainers(): Promise<Array<{ id: string; session: string; running: boolean }>> {
  const list = await new Docker().listContainers({ all: true, filters: { label: [`codeact.owner=${os.hostname()}:${process.pid}`] } })
  return list.flatMap((c) => {
    const named = /^\/codeact-session-(.+)-[0-9a-f]{8}$/.exec(c.Names[0] ?? '')
    return named?.[1] ? [{ id: c.Id, session: named[1], running: c.State === 'running' }] : []
  })
}

const value = (out: SandboxOutcome): unknown => (out.ok && out.valueJson !== undefined ? JSON.parse(out.valueJson) : out)

for (const runtime of dockerRuntimeCases) {
  describe.skipIf(runtime.skip !== undefined)(`docker sessions (${runtime.name})`, () => {
    let sandbox: DockerSandbox
    let host: TestHost
    let seq = 0
    const run = (id: string, realm: 'new' | 'existing', body: string, extra: Partial<SandboxRunRequest> = {}): Promise<SandboxOutcome> =>
      sandbox.run({ ...request(body), session: { id, realm }, entropy: { seed: `${id}-${++seq}` }, ...extra }, host, never())

    beforeAll(async () => {
      await ensureImage()
      sandbox = createDockerSandbox({ poolSize: 1, ...runtime.option })
      await sandbox.start()
      host = testHost()
    }, 300_000)
    afterAll(async () => {
      await sandbox.close()
      expect(await ownContainers()).toEqual([])
    })

    it('keeps live objects of one session across runs in the same container, and a stateless run never gets that container', async () => {
      expect(await sandbox.warm(1)).toBe(true)
      const hits = sandbox.poolStats.hits
      const first = await run(
        'keep',
        'new',
        `class Counter { n = 0; inc() { return ++this.n } }
         globalThis.counter = new Counter()
         globalThis.cache = new Map([['a', await tools.echo({ v: 1 })]])
         globalThis.label = (x) => 'item ' + x + ' of ' + cache.size
         return [counter.inc(), require('node:os').hostname()]`,
      )
      const [n1, hostname] = value(first) as [number, string]
      expect(n1).toBe(1)
      expect(sandbox.poolStats.hits).toBe(hits + 1) // the first run took the warm container, and keeps it
      const second = await run(
        'keep',
        'existing',
        `cache.set('b', await tools.add({ a: 1, b: 2 }))
         return [counter.inc(), counter instanceof Object, label('b'), [...cache.entries()], require('node:os').hostname()]`,
      )
      expect(value(second)).toEqual([
        2,
        true,
        'item b of 2',
        [
          ['a', { v: 1 }],
          ['b', 3],
        ],
        hostname,
      ])
      // One container for the session, labelled with its id, still running between runs.
      const mine = (await sessionContainers()).filter((c) => c.session === 'keep')
      expect(mine).toHaveLength(1)
      expect(mine[0]?.running).toBe(true)
      expect(mine[0]?.id.startsWith(hostname)).toBe(true)
      // A stateless run takes a pooled, single-use container: not the session's.
      const stateless = await sandbox.run(request(`return [typeof counter, require('node:os').hostname()]`), host, never())
      const [kind, other] = value(stateless) as [string, string]
      expect(kind).toBe('undefined')
      expect(other).not.toBe(hostname)
    })

    it('never shares a realm between sessions: two sessions in parallel bind the same names to their own values', async () => {
      const body = (who: string) =>
        `globalThis.owner = '${who}'; globalThis.seen = []; await tools.slow({ ms: 150 }); seen.push(owner); return owner`
      const [a, b] = await Promise.all([run('left', 'new', body('left')), run('right', 'new', body('right'))])
      expect([value(a), value(b)]).toEqual(['left', 'right'])
      const [a2, b2] = await Promise.all([
        run('left', 'existing', `seen.push(owner); return [owner, seen, require('node:os').hostname()]`),
        run('right', 'existing', `seen.push(owner); return [owner, seen, require('node:os').hostname()]`),
      ])
      const [leftOwner, leftSeen, leftHost] = value(a2) as [string, string[], string]
      const [rightOwner, rightSeen, rightHost] = value(b2) as [string, string[], string]
      expect([leftOwner, leftSeen, rightOwner, rightSeen]).toEqual(['left', ['left', 'left'], 'right', ['right', 'right']])
      expect(leftHost).not.toBe(rightHost)
      // A session nobody started has no realm: nothing runs, the answer is session_lost.
      const calls = host.calls.length
      const unknown = await run('nobody', 'existing', `await tools.echo({ ran: true }); return 1`)
      expect(unknown).toMatchObject({ ok: false, error: { kind: 'session_lost' } })
      expect(host.calls.length).toBe(calls)
    })

    it("runs one session's programs one at a time, in the order they came", async () => {
      expect(value(await run('queue', 'new', 'globalThis.log = []; return 0'))).toBe(0)
      const outs = await Promise.all(
        [1, 2, 3].map((i) =>
          run('queue', 'existing', `log.push('start ${i}'); await tools.slow({ ms: 50 }); log.push('end ${i}'); return log.length`),
        ),
      )
      expect(outs.map(value)).toEqual([2, 4, 6])
      expect(value(await run('queue', 'existing', 'return log'))).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3'])
    })

    it('a memory kill loses the realm: the next run is session_lost at once, and a new realm starts clean', async () => {
      expect(
        value(await run('bomb', 'new', 'globalThis.before = "kept"; return before', { limits: { ...request('').limits, memoryMb: 64 } })),
      ).toBe('kept')
      const [old] = (await sessionContainers()).filter((c) => c.session === 'bomb')
      const bomb = await run('bomb', 'existing', 'const a = []; while (true) a.push("x".repeat(1024) + a.length)', {
        limits: { ...request('').limits, memoryMb: 64 },
      })
      expect(bomb).toMatchObject({ ok: false, error: { kind: 'memory' } })
      const calls = host.calls.length
      const next = await run('bomb', 'existing', `await tools.echo({ ran: true }); return before`)
      expect(next).toMatchObject({ ok: false, error: { kind: 'session_lost' } })
      expect(host.calls.length).toBe(calls)
      const fresh = await run('bomb', 'new', 'return typeof before')
      expect(value(fresh)).toBe('undefined')
      // The killed container may still be on its way out; the live one is new.
      const now = (await sessionContainers()).filter((c) => c.session === 'bomb' && c.running)
      expect(now).toHaveLength(1)
      expect(now[0]?.id).not.toBe(old?.id)
    })

    it('a timeout ends the realm too (its container was killed), and says so as session_lost next time', async () => {
      await run('slowpoke', 'new', 'globalThis.x = 1')
      const out = await run('slowpoke', 'existing', 'while (true) {}', { limits: { ...request('').limits, timeoutMs: 500 } })
      expect(out).toMatchObject({ ok: false, error: { kind: 'timeout' } })
      expect(await run('slowpoke', 'existing', 'return x')).toMatchObject({ ok: false, error: { kind: 'session_lost' } })
    })

    it('endSession removes the container (Docker no longer has it); a later run of that id is session_lost', async () => {
      await run('ending', 'new', 'globalThis.x = 1')
      const [c] = (await sessionContainers()).filter((s) => s.session === 'ending')
      expect(c).toBeDefined()
      await sandbox.endSession?.('ending')
      await expect(new Docker().getContainer(c?.id ?? '').inspect()).rejects.toMatchObject({ statusCode: 404 })
      expect(await run('ending', 'existing', 'return x')).toMatchObject({ ok: false, error: { kind: 'session_lost' } })
      await sandbox.endSession?.('never-existed') // no error
    })

    it("a tool function kept from an earlier run calls through the current run's bridge", async () => {
      await run('kept', 'new', 'globalThis.echo = tools.echo; return 1')
      const calls = host.calls.length
      const out = await run('kept', 'existing', 'return [await echo({ a: 1 }), await tools.echo({ a: 2 })]')
      expect(value(out)).toEqual([{ a: 1 }, { a: 2 }])
      expect(host.calls.slice(calls)).toEqual([
        { name: 'echo', args: { a: 1 } },
        { name: 'echo', args: { a: 2 } },
      ])
    })

    it("what an earlier run planted in the runner's realm bends neither the next run's calls, console nor outcome", async () => {
      await run(
        'poison',
        'new',
        `const runner = process.constructor.constructor('return globalThis')()
         for (const name of ['finished', 'bridge', 'flush', 'log', 'logBatch', 'logBytes', 'flushScheduled'])
           runner.Object.defineProperty(runner.Object.prototype, name, { get() { return undefined }, set() {}, configurable: true })
         runner.Array.prototype.push = function () { throw new Error('push poisoned') }
         runner.JSON.stringify = () => '{"type":"done","outcomeJson":"{}"}'
         globalThis.planted = true
         return 1`,
      )
      const before = host.logs.length
      const out = await run('poison', 'existing', `console.log('still here', planted)\nreturn await tools.add({ a: 20, b: 22 })`)
      expect(out).toMatchObject({ ok: true, valueJson: '42' })
      expect(host.logs.slice(before)).toEqual([{ level: 'log', text: 'still here true' }])
    })

    it("refuses another caller's run in a session it does not own", async () => {
      await sandbox.run({ ...request('globalThis.secret = 7'), session: { id: 'owned', realm: 'new' }, callerId: 'alice' }, host, never())
      const theirs = await sandbox.run(
        { ...request('return secret'), session: { id: 'owned', realm: 'existing' }, callerId: 'mallory' },
        host,
        never(),
      )
      expect(theirs).toMatchObject({ ok: false, error: { kind: 'sandbox_unavailable' } })
      const mine = await sandbox.run(
        { ...request('return secret'), session: { id: 'owned', realm: 'existing' }, callerId: 'alice' },
        host,
        never(),
      )
      expect(mine).toMatchObject({ ok: true, valueJson: '7' })
    })

    it("counts a run's own stray output only: what an earlier run wrote to fd 1 is not dropped again", async () => {
      const first = await run('stray', 'new', `require('node:fs').writeSync(1, 'x'.repeat(99) + '\\n'); return 1`)
      expect(first).toMatchObject({ ok: true, droppedOutputBytes: 100 })
      expect(await run('stray', 'existing', 'return 2')).toMatchObject({ ok: true, valueJson: '2', droppedOutputBytes: 0 })
    })

    it('replays entropy: the same seed and recorded clock rebuild the same Math.random, crypto, Date and performance values', async () => {
      const body = `return [Math.random(), crypto.randomUUID(), Array.from(crypto.getRandomValues(new Uint8Array(6))),
        Date.now(), new Date().toISOString(), performance.now(), performance.now()]`
      const entropy = { seed: 'replay-me' }
      const first = await sandbox.run({ ...request(body), session: { id: 'rec', realm: 'new' }, entropy }, host, never())
      expect(first.ok).toBe(true)
      const clock = first.clock ?? []
      // Run-length encoded by the prelude (reads in the same millisecond collapse), never empty here.
      expect(clock.length).toBeGreaterThan(0)
      const again = await sandbox.run(
        { ...request(body), session: { id: 'rec', realm: 'new' }, entropy: { ...entropy, clock } },
        host,
        never(),
      )
      expect(value(again)).toEqual(value(first))
      expect(again.clock).toEqual(clock)
      const [, uuid] = value(first) as [number, string]
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      // Another seed: other values.
      const other = await sandbox.run(
        { ...request(body), session: { id: 'rec', realm: 'new' }, entropy: { seed: 'another' } },
        host,
        never(),
      )
      expect((value(other) as unknown[])[1]).not.toBe(uuid)
      await expect(run('rec', 'existing', 'return crypto.getRandomValues(new Float64Array(2))')).resolves.toMatchObject({
        ok: false,
        error: { message: expect.stringContaining('integer-type') },
      })
    })

    it("close() removes every session's container", async () => {
      const own = createDockerSandbox({ poolSize: 0, ...runtime.option })
      const outs = await Promise.all(
        ['c1', 'c2'].map((id) =>
          own.run({ ...request('globalThis.y = 1; return y'), session: { id, realm: 'new' }, entropy: { seed: id } }, host, never()),
        ),
      )
      expect(outs.map(value)).toEqual([1, 1])
      const before = (await sessionContainers()).filter((c) => c.session === 'c1' || c.session === 'c2')
      expect(before).toHaveLength(2)
      await own.close()
      for (const c of before) await expect(new Docker().getContainer(c.id).inspect()).rejects.toMatchObject({ statusCode: 404 })
    })

    it("the reaper removes a killed host's session container, found by its owner labels", async () => {
      const bundle = await bundleFixture('session-host')
      const child = spawn(process.execPath, [bundle], {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, ...(runtime.option.runtime ? { SESSION_HOST_RUNTIME: runtime.option.runtime } : {}) },
      })
      const said = await new Promise<string>((resolve) => {
        child.stdout.setEncoding('utf8')
        child.stdout.once('data', (d: string) => resolve(d.trim()))
        child.once('exit', () => resolve('exited'))
      })
      expect(said).toBe('kept')
      const theirs = async () =>
        (await new Docker().listContainers({ all: true, filters: { label: [`codeact.owner=${os.hostname()}:${child.pid}`] } })).map(
          (c) => ({
            id: c.Id,
            session: c.Labels['codeact.session'],
          }),
        )
      const left = await theirs()
      expect(left.map((c) => c.session)).toEqual(['left-behind'])
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGKILL')
      await exited
      const reaped = await reapOrphans()
      expect(reaped.removed).toContain(left[0]?.id)
      expect(await theirs()).toEqual([])
    }, 120_000)
  })
}
