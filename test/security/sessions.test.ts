/**
 * Sessions attacked (issue 15): one session reading or poisoning another's state (globals, intrinsics'
 * prototypes, the Symbol.for registry, Error.prepareStackTrace, timers and promises left running), for
 * sessions of one caller (one child process) and of two callers; a memory bomb next to a live session;
 * racing runs of one session; reset()/close() during a run; the cap and the expiry under load; a restore
 * whose log was tampered with. Every test says what a user must be able to rely on, not how.
 */
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Runtime, RuntimeOptions } from '../../runtime/create-runtime.js'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'
import type { Session } from '../../runtime/session.js'
import { parseJSONL } from '../../runtime/event-log.js'
import { replayObservations } from '../../runtime/replay.js'
import type { RunResult } from '../../vocabulary/types.js'
import { unmatchedCalls } from '../support/runtime.js'
import { sessionRuntime } from '../sessions/session-api.js'
import { sessionTools } from '../sessions/tools.js'

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Attack programs poke at globalThis as JavaScript: the check is off, what runs is what counts. */
async function attackRuntime(extra: Parameters<typeof sessionRuntime>[0] = {}) {
  const counted = sessionTools()
  const rt = await sessionRuntime({ tools: counted.tools, typecheck: 'off', limits: { timeoutMs: 20_000 }, ...extra })
  return { rt, counted }
}

/** A session of `caller` (undefined: the runtime's own caller). */
function sessionAs(rt: Runtime, caller: string | undefined): Session {
  return rt.session(caller ? { caller } : {})
}

/** A run of `s` (a session of `caller`) through `rt.runCode`, as a harness passing both would. */
function runAs(rt: Runtime, s: Session, caller: string | undefined, code: string): Promise<RunResult> {
  return rt.runCode(code, { session: s, ...(caller ? { caller } : {}) })
}

/** The backends the run-level attacks run on: the isolate always, Docker where an engine is (one container per session). */
const BACKENDS: [string, Partial<RuntimeOptions>][] = [['isolate', {}]]
if (dockerEngine.available) BACKENDS.push(['docker', { sandbox: 'docker' }])

const CALLERS = BACKENDS.flatMap(([backend, options]) => [
  [`two sessions of one caller (${backend})`, undefined, undefined, backend, options] as const,
  [`two sessions of different callers (${backend})`, 'alice', 'mallory', backend, options] as const,
])

describe.each(CALLERS)('%s', (_label, callerA, callerB, backend, options) => {
  beforeAll(async () => {
    if (backend === 'docker') await ensureImage()
  })

  it("B finds none of A's state, whatever way A left it", async () => {
    const { rt } = await attackRuntime(options)
    const a = sessionAs(rt, callerA)
    const b = sessionAs(rt, callerB)
    const planted = await runAs(
      rt,
      a,
      callerA,
      `const secret = 'A-SECRET'
       var secretVar = 'A-SECRET'
       function secretFn() { return 'A-SECRET' }
       globalThis.leak = 'A-SECRET'
       Object.defineProperty(globalThis, 'hidden', { value: 'A-SECRET', enumerable: false })
       globalThis[Symbol.for('codeact.secret')] = 'A-SECRET'
       Symbol.for('A-SECRET-registered')
       return 'planted'`,
    )
    expect(planted.value, planted.observation).toBe('planted')
    const probe = await runAs(
      rt,
      b,
      callerB,
      `const found = []
       for (const name of ['secret', 'secretVar', 'secretFn', 'leak', 'hidden']) {
         try { if (eval('typeof ' + name) !== 'undefined') found.push(name) } catch { found.push(name + '(TDZ)') }
       }
       if (globalThis[Symbol.for('codeact.secret')] !== undefined) found.push('Symbol.for key')
       for (const n of Object.getOwnPropertyNames(globalThis)) if (/secret|leak|hidden/i.test(n)) found.push(n)
       for (const s of Object.getOwnPropertySymbols(globalThis)) found.push(String(s))
       return found`,
    )
    expect(probe.error, probe.observation).toBeNull()
    expect(probe.value).toEqual([])
    expect(JSON.stringify(probe.events)).not.toContain('A-SECRET')
  })

  it("A's patched intrinsics stay in A: B, a new session and a stateless run see the real ones", async () => {
    const { rt } = await attackRuntime(options)
    const a = sessionAs(rt, callerA)
    const patched = await runAs(
      rt,
      a,
      callerA,
      `Array.prototype.map = function () { return ['pwned'] }
       Array.prototype.includes = () => true
       Object.prototype.isAdmin = true
       JSON.stringify = () => '"pwned"'
       String.prototype.toUpperCase = function () { return 'pwned' }
       const realThen = Promise.prototype.then
       Promise.prototype.then = function (ok, no) { globalThis.stolen = (globalThis.stolen ?? 0) + 1; return realThen.call(this, ok, no) }
       Function.prototype.toString = () => 'pwned'
       Math.random = () => 0.5
       return [1].map((x) => x)`,
    )
    expect(patched.value, patched.observation).toEqual(['pwned'])
    const probe = `const w = await tools.get_weather({ city: 'Oslo' })
      return {
        map: [1, 2].map((x) => x * 2),
        includes: [1].includes(7),
        isAdmin: ({}).isAdmin,
        json: JSON.stringify({ a: 1 }),
        upper: 'abc'.toUpperCase(),
        stolen: globalThis.stolen,
        fn: (function f() {}).toString() !== 'pwned',
        random: Math.random() !== 0.5 || Math.random() !== 0.5,
        tool: w.tempC,
      }`
    const clean = { map: [2, 4], includes: false, json: '{"a":1}', upper: 'ABC', fn: true, random: true, tool: -3 }
    for (const r of [
      await runAs(rt, sessionAs(rt, callerB), callerB, probe),
      await runAs(rt, sessionAs(rt, callerA), callerA, probe),
      await rt.runCode(probe),
    ]) {
      expect(r.error, r.observation).toBeNull()
      expect(r.value).toEqual(clean)
    }
  })

  it("A's Error.prepareStackTrace does not reach B's errors: B's failure keeps its message and line", async () => {
    const { rt } = await attackRuntime(options)
    const a = sessionAs(rt, callerA)
    await runAs(
      rt,
      a,
      callerA,
      `Error.prepareStackTrace = () => 'HIJACKED'\nError.stackTraceLimit = 0\nglobalThis.Error = function () { return { message: 'HIJACKED' } }`,
    )
    const r = await runAs(
      rt,
      sessionAs(rt, callerB),
      callerB,
      "const x = 1\nconst stack = new Error('probe').stack\nconsole.log(stack.includes('HIJACKED'))\nnull.boom",
    )
    expect(r.logs.map((l) => l.text)).toEqual(['false'])
    expect(r.error).toMatchObject({ kind: 'runtime', line: 4 })
    expect(r.observation).not.toContain('HIJACKED')
  })
})

/** Memory bombs beside a live session, on the isolate (sessions of one caller share its sandbox process). */
describe.each([
  ['one caller', undefined, undefined],
  ['different callers', 'alice', 'mallory'],
] as const)('memory bombs between two sessions of %s', (_label, callerA, callerB) => {
  it("a memory bomb in A leaves B's state as it was (live or restored equal), and A restores to its last good state", async () => {
    const { rt, counted } = await attackRuntime({ sessions: { memoryMb: 64 } })
    const a = sessionAs(rt, callerA)
    const b = sessionAs(rt, callerB)
    const setup = `const orders = await tools.list_orders({})
      const stamp = [Math.random(), Date.now()]
      const byId = new Map(orders.map((o) => [o.id, o]))
      return stamp`
    const stampA = (await runAs(rt, a, callerA, setup)).value
    const stampB = (await runAs(rt, b, callerB, setup)).value
    const executions = counted.total()
    const bomb = await runAs(rt, a, callerA, 'const hog = []\nfor (;;) hog.push(new Uint8Array(1 << 20).fill(1))')
    expect(bomb.error?.kind, bomb.observation).toBe('memory')
    const check = 'return { stamp, size: byId.size, amount: byId.get("o4").amount }'
    const afterB = await runAs(rt, b, callerB, check)
    expect(afterB.error, afterB.observation).toBeNull()
    expect(afterB.value).toEqual({ stamp: stampB, size: 5, amount: 300 })
    const afterA = await runAs(rt, a, callerA, check)
    expect(afterA.error, afterA.observation).toBeNull()
    expect(afterA.value).toEqual({ stamp: stampA, size: 5, amount: 300 })
    expect(afterA.observation).toMatch(/restored/i)
    expect(counted.total(), 'no tool ran again to restore').toBe(executions)
  })

  it("a bomb that aborts A's whole sandbox process mid-way through B's run: B's state survives, no tool runs twice", async () => {
    const { rt, counted } = await attackRuntime({ sessions: { memoryMb: 64 } })
    const a = sessionAs(rt, callerA)
    const b = sessionAs(rt, callerB)
    await runAs(rt, a, callerA, 'const ready = true')
    const setup = await runAs(rt, b, callerB, "const user = await tools.get_user({ id: 'u1' })\nconst seed = Math.random()\nseed")
    expect(setup.error, setup.observation).toBeNull()
    const inFlight = runAs(rt, b, callerB, 'await tools.sleep({ ms: 1500 })\nreturn user.name')
    await pause(300)
    const bomb = await runAs(rt, a, callerA, 'new Array(1e9).fill(1)')
    expect(bomb.error?.kind, bomb.observation).toBe('memory')
    const flown = await inFlight
    if (callerA !== callerB) expect(flown.value, 'another caller is another process: its run goes on').toBe('Ana')
    else if (!flown.ok) expect(flown.observation).toMatch(/sandbox|process|lost|restor/i)
    const executions = counted.total()
    const after = await runAs(rt, b, callerB, 'return [user.name, seed]')
    expect(after.error, after.observation).toBeNull()
    expect(after.value).toEqual(['Ana', setup.value])
    expect(counted.total(), 'the restore ran no tool').toBe(executions)
    expect(counted.counts.get('get_user')).toBe(1)
  })
})

describe("a session's memory limit", () => {
  it('a session run out of memory is told the limit that governs it and how to raise it', async () => {
    const { rt } = await attackRuntime({ sessions: { memoryMb: 64 } })
    const s = rt.session()
    await s.runCode('const a = 1')
    const r = await s.runCode(
      'const big = []\nfor (let i = 0; i < 100; i++) big.push(new Uint8Array(1 << 20).fill(1))\nreturn big.length',
      {
        limits: { memoryMb: 256 },
      },
    )
    // Either the run's own larger limit is honoured, or the hint names the session's limit, not one that does not apply.
    if (r.ok) expect(r.value).toBe(100)
    else {
      expect(r.error?.kind, r.observation).toBe('memory')
      expect(r.observation).toMatch(/64 MB/)
      expect(r.observation).toMatch(/realm-memory|sessions\.memoryMb/)
    }
  })
})

describe('a turn that hangs', () => {
  it('an endless loop times out; the next turn has the earlier state and no tool ran again', async () => {
    const { rt, counted } = await attackRuntime()
    const s = rt.session()
    const setup = await s.runCode("const user = await tools.get_user({ id: 'u1' })\nconst notes = new Map([['a', 1]])\nuser.name")
    expect(setup.value, setup.observation).toBe('Ana')
    const hang = await s.runCode("notes.set('b', 2)\nfor (;;) {}", { limits: { timeoutMs: 1500 } })
    expect(hang.error?.kind, hang.observation).toBe('timeout')
    const after = await s.runCode('return [user.name, notes.get("a")]')
    expect(after.error, after.observation).toBeNull()
    expect(after.value).toEqual(['Ana', 1])
    expect(counted.counts.get('get_user')).toBe(1)
  })
})

describe('session ids and callers', () => {
  it("another caller naming a session's id does not get into it", async () => {
    const { rt } = await attackRuntime()
    const alice = rt.session({ id: 'conv-1', caller: 'alice' })
    await alice.runCode("const card = 'alice-card-4242'")
    const tries: string[] = []
    const attempt = (p: () => Promise<RunResult>) =>
      p().then(
        (r) => void tries.push(`${r.observation}${JSON.stringify(r.events)}`),
        (e: unknown) => void tries.push(String(e)),
      )
    const probe = 'return typeof card === "undefined" ? "no access" : card'
    await attempt(() => rt.runCode(probe, { session: 'conv-1', caller: 'mallory' }))
    await attempt(() => rt.session({ id: 'conv-1', caller: 'mallory' }).runCode(probe))
    await attempt(() => rt.runCode(probe, { session: alice, caller: 'mallory' }))
    await attempt(() => rt.runCode(probe, { session: 'conv-1' }))
    for (const seen of tries) expect(seen).not.toContain('alice-card-4242')
    const still = await rt.session({ id: 'conv-1', caller: 'alice' }).runCode('return card')
    expect(still.value, still.observation).toBe('alice-card-4242')
  })

  it.each([['__proto__'], ['constructor'], ['toString'], ['hasOwnProperty'], ['a\nb'], ['../../etc/passwd']])(
    'a session named %j is a session like any other, apart from the rest',
    async (id) => {
      const { rt } = await attackRuntime()
      const named = rt.session({ id })
      const other = rt.session()
      const first = await named.runCode("const mine = 'named'\nmine")
      expect(first.value, first.observation).toBe('named')
      expect((await other.runCode('return typeof mine')).value).toBe('undefined')
      expect((await rt.session({ id }).runCode('mine')).value).toBe('named')
    },
  )

  it('an id too long or empty is refused when the session is asked for, saying what an id may be', async () => {
    const { rt } = await attackRuntime()
    for (const id of ['x'.repeat(5000), '']) expect(() => rt.session({ id })).toThrow(/session id/)
  })
})

describe('what a session run makes the log hold', () => {
  it('a run that reads the clock a million times does not make its run/end event (and the log) grow with it', async () => {
    const { rt } = await attackRuntime()
    const s = rt.session()
    const r = await s.runCode('let last = 0\nfor (let i = 0; i < 1_000_000; i++) last = Date.now()\nlast > 0')
    expect(r.value, r.observation).toBe(true)
    const end = r.events.find((e) => e.type === 'run/end')!
    expect(JSON.stringify(end).length, 'the run/end event stays bounded').toBeLessThan(256 * 1024)
  })

  it('past the clock reads the log keeps, a restore either rebuilds the same times or says they may differ', async () => {
    const logFile = join(mkdtempSync(join(tmpdir(), 'codeact-session-clock-')), 'events.jsonl')
    const { rt } = await attackRuntime({ logFile })
    const made = await rt
      .session({ id: 'clocky' })
      .runCode(
        'const stamps: number[] = []\nfor (let i = 0; i < 30_000; i++) stamps.push(Date.now())\nconst last = stamps[stamps.length - 1]\nlast',
      )
    await rt.close()
    await pause(50)
    const { rt: again } = await attackRuntime({ logFile })
    const back = await again.session({ id: 'clocky' }).runCode('last')
    if (back.value !== made.value) expect(back.observation).toMatch(/clock|time|may differ|not (be )?the same/i)
  })
})

describe.each(BACKENDS)('timers and promises a session leaves behind (%s)', (backend, options) => {
  beforeAll(async () => {
    if (backend === 'docker') await ensureImage()
  })

  it('a timer or a pending promise left by a run never calls a tool while no run of its session is running', async () => {
    const { rt, counted } = await attackRuntime(options)
    const a = rt.session()
    const left = await a.runCode(`setTimeout(() => tools.send_email({ to: 'x@evil.test', subject: 'from a timer' }), 50)
      setInterval(() => { globalThis.ticks = (globalThis.ticks ?? 0) + 1; tools.send_email({ to: 'x@evil.test', subject: 'tick' }) }, 20)
      globalThis.later = tools.sleep({ ms: 100 }).then(() => tools.send_email({ to: 'x@evil.test', subject: 'from a promise' }))
      return 'left behind'`)
    expect(left.value, left.observation).toBe('left behind')
    const sentDuringRun = counted.counts.get('send_email') ?? 0
    await pause(600)
    expect(counted.counts.get('send_email') ?? 0, 'no e-mail sent between runs').toBe(sentDuringRun)
    const b = rt.session()
    const other = await b.runCode('await tools.sleep({ ms: 300 })\nreturn typeof globalThis.ticks')
    expect(other.value).toBe('undefined')
    expect(other.calls.map((c) => c.name)).toEqual(['sleep'])
    expect(counted.counts.get('send_email') ?? 0, "no e-mail sent during another session's run").toBe(sentDuringRun)
    const next = await a.runCode('await new Promise((r) => setTimeout(r, 100))\nreturn globalThis.ticks ?? 0')
    expect(next.error, next.observation).toBeNull()
    const ticksNow = next.value
    const again = await a.runCode('await new Promise((r) => setTimeout(r, 100))\nreturn globalThis.ticks ?? 0')
    expect(again.value, 'the interval of run 1 no longer ticks').toBe(ticksNow)
    expect(unmatchedCalls(rt.log.all())).toEqual([])
  })

  it('a promise of run 1 that resolves during run 2 cannot make run 2 call tools it did not ask for', async () => {
    const { rt, counted } = await attackRuntime(options)
    const a = rt.session()
    await a.runCode(`globalThis.trap = new Promise((resolve) => { globalThis.spring = resolve }).then(() => tools.send_email({ to: 'x@evil.test', subject: 'sprung' }))
      return 1`)
    const r = await a.runCode("globalThis.spring?.()\nawait new Promise((r) => setTimeout(r, 100))\nreturn 'ran'")
    // Run 2 itself sprang the trap: its own program asked for it, so the call is run 2's, logged and matched.
    expect(r.error, r.observation).toBeNull()
    expect(r.calls.map((c) => c.name)).toEqual(counted.counts.get('send_email') ? ['send_email'] : [])
    expect(unmatchedCalls(rt.log.all())).toEqual([])
  })
})

describe.skipIf(!dockerEngine.available)('what a Docker session run leaves in Node itself', () => {
  beforeAll(async () => {
    await ensureImage()
  })

  it("Node's own timers, reached by an import, never call a tool between runs; in the next run their calls are that run's", async () => {
    const { rt, counted } = await attackRuntime({ sandbox: 'docker' })
    const a = rt.session()
    const left = await a.runCode(`const timers = await import('node:timers')
      timers.setInterval(() => { tools.send_email({ to: 'x@evil.test', subject: 'node tick' }).catch(() => {}) }, 20)
      return 'armed'`)
    expect(left.error === null || left.error.kind === 'compile' || left.error.kind === 'runtime', left.observation).toBe(true)
    const sent = counted.counts.get('send_email') ?? 0
    await pause(500)
    expect(counted.counts.get('send_email') ?? 0, 'no e-mail sent between runs').toBe(sent)
    const next = await a.runCode("await new Promise((r) => setTimeout(r, 200))\nreturn 'quiet?'")
    // Known broken (finding F6, open): the interval of run 1 calls tools inside run 2, which did not ask for them.
    // What holds today: each such call is run 2's, in its record and the log, answered once.
    expect(next.value, next.observation).toBe('quiet?')
    expect(next.calls.every((c) => c.name === 'send_email')).toBe(true)
    expect(unmatchedCalls(rt.log.all())).toEqual([])
  })
})

describe.each(BACKENDS)('runs of one session at once (%s)', (backend, options) => {
  beforeAll(async () => {
    if (backend === 'docker') await ensureImage()
  })

  it('racing runs of one session are serialised or refused clearly, never interleaved', async () => {
    const { rt } = await attackRuntime(options)
    const s = rt.session()
    await s.runCode('let counter = 0')
    const bump = 'const before = counter\nawait tools.sleep({ ms: 30 })\ncounter = before + 1\nreturn counter'
    const results = await Promise.all(Array.from({ length: 6 }, () => s.runCode(bump)))
    const ok = results.filter((r) => r.ok)
    for (const r of results.filter((x) => !x.ok)) expect(r.observation).toMatch(/busy|already running|one run at a time|in progress/i)
    expect(ok.length).toBeGreaterThan(0)
    expect(ok.map((r) => r.value).sort()).toEqual(Array.from({ length: ok.length }, (_, i) => i + 1))
    expect((await s.runCode('return counter')).value).toBe(ok.length)
  })

  it('a storm of runs and resets on one session ends consistent: after the last reset, nothing of before', async () => {
    const { rt } = await attackRuntime(options)
    const s = rt.session()
    const work: Promise<unknown>[] = []
    for (let i = 0; i < 6; i++) {
      work.push(s.runCode(`var n${i} = ${i}\nawait tools.sleep({ ms: 20 })\nreturn ${i}`))
      work.push(s.reset())
    }
    const settled = await Promise.allSettled(work)
    expect(settled.filter((x) => x.status === 'rejected').map((x) => String((x as PromiseRejectedResult).reason))).toEqual([])
    await s.reset()
    const probe = await s.runCode('return Object.keys(globalThis).filter((k) => /^n\\d$/.test(k))')
    expect(probe.value, probe.observation).toEqual([])
    expect(unmatchedCalls(rt.log.all())).toEqual([])
  })

  it.each(['reset', 'close'] as const)('%s() during a run settles the run and leaves none of its state', async (how) => {
    const { rt, counted } = await attackRuntime(options)
    const s = rt.session()
    await s.runCode("const before = 'kept?'")
    const running = s.runCode("await tools.sleep({ ms: 800 })\nglobalThis.after = 'set'\nconst late = 1\nreturn 'finished'")
    await pause(200)
    await s[how]()
    const r = await running
    expect(r.error === null || ['aborted', 'sandbox_unavailable', 'runtime'].includes(r.error.kind), r.observation).toBe(true)
    const probe = await rt.runCode('return [typeof before, typeof late, typeof globalThis.after]', { session: s.id })
    expect(probe.value, probe.observation).toEqual(['undefined', 'undefined', 'undefined'])
    expect(counted.counts.get('sleep')).toBe(1)
  })
})

describe('the cap and the expiry', () => {
  it('past the cap, evicted sessions come back with their state and no tool runs again', async () => {
    const { rt, counted } = await attackRuntime({ sessions: { max: 2 } })
    const sessions = Array.from({ length: 5 }, () => rt.session())
    const first = await Promise.all(
      sessions.map((s, i) =>
        s.runCode(`const mine = ${i}\nconst w = await tools.get_weather({ city: 'City${i}' })\nconst r = Math.random()\nreturn r`),
      ),
    )
    for (const r of first) expect(r.error, r.observation).toBeNull()
    const executions = counted.total()
    const second = await Promise.all(sessions.map((s) => s.runCode('return [mine, w.city, r]')))
    second.forEach((r, i) => {
      expect(r.error, r.observation).toBeNull()
      expect(r.value).toEqual([i, `City${i}`, first[i]!.value])
    })
    expect(
      second.filter((r) => /restored/i.test(r.observation)).length,
      'at least the evicted ones say they were restored',
    ).toBeGreaterThanOrEqual(3)
    expect(counted.total()).toBe(executions)
  })

  it('an idle session expires and restores to equal state (Math.random and Date.now replayed); a long run is not expired under it', async () => {
    const { rt, counted } = await attackRuntime({ sessions: { idleMs: 300 } })
    const s = rt.session()
    const made = await s.runCode(`const picks = [Math.random(), Math.random()]
      const at = Date.now()
      const made = new Date().toISOString()
      const orders = await tools.list_orders({})
      return { picks, at, made }`)
    expect(made.error, made.observation).toBeNull()
    const long = await s.runCode("await tools.sleep({ ms: 900 })\nconst afterLong = 'alive'\nreturn picks.length")
    expect(long.value, long.observation).toBe(2)
    const executions = counted.total()
    await pause(1200)
    const back = await s.runCode('return { picks, at, made, n: orders.length, afterLong }')
    expect(back.error, back.observation).toBeNull()
    expect(back.value).toEqual({ ...(made.value as object), n: 5, afterLong: 'alive' })
    expect(back.observation).toMatch(/restored/i)
    expect(counted.total(), 'the restore ran no tool (the sleep and the orders are replayed)').toBe(executions)
  })
})

describe('codeact replay over a session that was restored', () => {
  it('rebuilds every observation the model read, across a restart too, byte for byte, and only those', async () => {
    const logFile = join(mkdtempSync(join(tmpdir(), 'codeact-session-replay-')), 'events.jsonl')
    const { rt } = await attackRuntime({ logFile, typecheck: 'error', sessions: { memoryMb: 64 } })
    const s = rt.session()
    const seen: RunResult[] = []
    for (const code of [
      "const user = await tools.get_user({ id: 'u1' })\nconst pick = Math.random()\nuser.name",
      'return user.nmae.length',
      'const hog: Uint8Array[] = []\nfor (;;) hog.push(new Uint8Array(1 << 20).fill(1))',
      '`${user.name} ${pick}`',
      'console.log("again")\nuser.email',
    ])
      seen.push(await s.runCode(code))
    expect(seen[3]!.observation).toMatch(/restored/i)
    await rt.close()
    const { rt: restarted } = await attackRuntime({ logFile, typecheck: 'error' })
    seen.push(await restarted.session({ id: s.id }).runCode('`${user.email} ${pick}`'))
    expect(seen[5]!.observation).toMatch(/restored/i)
    await restarted.close()
    const replayed = replayObservations(parseJSONL(readFileSync(logFile, 'utf8')))
    const runIds = seen.map((r) => (r.events.find((e) => e.type === 'run/start')!.data as { runId: string }).runId)
    expect(replayed.map((o) => o.id)).toEqual(runIds)
    expect(replayed.map((o) => o.content)).toEqual(seen.map((r) => r.observation))
  })
})

describe('restoring from a log file after a host restart', () => {
  const setup = [
    'const orders = await tools.list_orders({})\nconst n = orders.length\nconst seed = Math.random()\nconst at = Date.now()\nn',
    "if (n > 10) await tools.send_email({ to: 'boss@example.com', subject: 'a big day' })\nconst doubled = n * 2\ndoubled",
  ]

  /** A runtime on the tampered log does not start: the log is refused whole, naming the line (EBADMSG). */
  async function expectLogRefused(logFile: string): Promise<void> {
    const refused = await attackRuntime({ logFile }).then(
      () => undefined,
      (e: Error & { code?: string }) => e,
    )
    expect(refused).toMatchObject({
      code: 'EBADMSG',
      message: expect.stringMatching(/cannot be trusted \(line \d+: its MAC does not match/),
    })
  }

  async function firstHost(id: string): Promise<{ logFile: string; seen: RunResult[] }> {
    const logFile = join(mkdtempSync(join(tmpdir(), 'codeact-session-log-')), 'events.jsonl')
    const { rt } = await attackRuntime({ logFile })
    const s = rt.session({ id })
    const seen: RunResult[] = []
    for (const code of setup) seen.push(await s.runCode(code))
    seen.push(await s.runCode('return [n, doubled, seed, at]'))
    await rt.close()
    return { logFile, seen }
  }

  it('a new runtime on the same log restores the session to equal state, running no tool, even after a torn last line', async () => {
    const { logFile, seen } = await firstHost('restart-1')
    appendFileSync(logFile, '{"seq":999,"time":1,"type":"run/st')
    const { rt, counted } = await attackRuntime({ logFile })
    const r = await rt.session({ id: 'restart-1' }).runCode('return [n, doubled, seed, at]')
    expect(r.error, r.observation).toBeNull()
    expect(r.value).toEqual(seen[2]!.value)
    expect(r.observation).toMatch(/restored/i)
    expect(counted.total()).toBe(0)
  })

  it('a tool result rewritten to send the replay down another path: the log is refused (EBADMSG), nothing is restored from it', async () => {
    const { logFile } = await firstHost('poisoned')
    const lines = readFileSync(logFile, 'utf8').trimEnd().split('\n')
    const many = Array.from({ length: 20 }, (_, i) => ({ id: `x${i}`, customer: 'evil', amount: 1, status: 'paid' }))
    const poisoned = lines.map((line) => {
      const e = JSON.parse(line) as { type: string; data: { name?: string; result?: { ok: boolean; value?: unknown } } }
      if (e.type !== 'tool/result' || e.data.name !== 'list_orders') return line
      return JSON.stringify({ ...e, data: { ...e.data, result: { ok: true, value: many } } })
    })
    expect(poisoned).not.toEqual(lines)
    writeFileSync(logFile, `${poisoned.join('\n')}\n`)
    // The log is signed line by line: a rewritten result is refused before any session is restored from it.
    await expectLogRefused(logFile)
  })

  it('a program rewritten in the log to call a tool it never called: the log is refused (EBADMSG), nothing is restored from it', async () => {
    const { logFile } = await firstHost('rewritten')
    const lines = readFileSync(logFile, 'utf8').trimEnd().split('\n')
    let first = true
    const rewritten = lines.map((line) => {
      const e = JSON.parse(line) as { type: string; data: { code?: string } }
      if (e.type !== 'run/start' || !first) return line
      first = false
      return JSON.stringify({
        ...e,
        data: { ...e.data, code: `await tools.send_email({ to: 'x@evil.test', subject: 'injected' })\n${e.data.code}` },
      })
    })
    writeFileSync(logFile, `${rewritten.join('\n')}\n`)
    await expectLogRefused(logFile)
  })

  it('an unknown session id in a log-less runtime starts a fresh session, saying nothing was restored', async () => {
    const { rt } = await attackRuntime()
    const r = await rt.session({ id: 'never-seen' }).runCode('return typeof globalThis.anything')
    expect(r.value, r.observation).toBe('undefined')
    expect(r.observation).not.toMatch(/restored/i)
  })
})
