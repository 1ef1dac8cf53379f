/**
 * With the check off, a one-shot program the gate admits is prepared in the host's own thread
 * (sdk/host-prepare.ts), by the checker thread's own code: a real check-off runtime (isolate sandbox) gives
 * the same run for programs models write whichever path prepared them (each path forced), a runtime whose
 * programs all pass the gate never starts a checker thread, and a program the gate refuses still runs,
 * prepared by the thread.
 */
import { describe, expect, it } from 'vitest'
import { createProgramPrep, setCheckOffPrepare } from '../../runtime/typecheck.js'
import { hostPrepareAdmits } from '../../sdk/host-prep-gate.js'
import { hostPrepareReady, prepareInHost } from '../../sdk/host-prepare.js'
import { poolRequestsPosted, poolThreadsStarted } from '../../sdk/typecheck-pool.js'
import type { RunResult } from '../../vocabulary/types.js'
import { testRuntime } from '../support/runtime.js'
import { basicTools } from '../support/tools.js'

/** Programs as models write them, each with what must hold of its run. */
const PROGRAMS: { name: string; code: string; expect: (r: RunResult) => void }[] = [
  { name: 'last expression', code: 'const xs = [1, 2, 3]\nxs.length * 2', expect: (r) => expect(r.value).toBe(6) },
  {
    name: 'a fenced program',
    code: '```ts\nconst sum = await tools.add({ a: 2, b: 3 })\nsum\n```',
    expect: (r) => expect(r.value).toBe(5),
  },
  {
    name: '`await` line-broken from its call',
    code: 'const r = await\n  tools.add({ a: 1, b: 2 })\nreturn r',
    expect: (r) => expect(r.value).toBe(3),
  },
  {
    name: 'a syntax error, with its line and column',
    code: 'const a = 1\nconst b = a +* 2\nreturn b',
    expect: (r) => expect(r.error).toMatchObject({ kind: 'compile', line: 2 }),
  },
  {
    name: 'a thrown error mapped to program.ts lines',
    code: "const a: number = 1\n\nfunction f(): never {\n  throw new Error('boom')\n}\nconsole.log(new Error('seen').stack)\nif (a) f()",
    expect: (r) => {
      expect(r.error).toMatchObject({ kind: 'runtime', line: 4 })
      expect(r.logs.map((l) => l.text).join('\n')).toMatch(/program\.ts:6:\d+/)
    },
  },
  {
    name: 'a node: import, refused',
    code: "import { readFileSync } from 'node:fs'\nreturn readFileSync('/etc/passwd', 'utf8')",
    expect: (r) => expect(r.error).toMatchObject({ kind: 'compile', message: expect.stringMatching(/import/) }),
  },
]

/** What a run's caller and the model see (ids and durations differ from run to run). */
const seen = (r: RunResult) => ({
  ok: r.ok,
  value: r.value,
  error: r.error,
  logs: r.logs,
  calls: r.calls.map(({ name, args, ok, result, error }) => ({ name, args, ok, result, error })),
  observation: r.observation.replace(/\b\d+(\.\d+)? ?ms\b/g, 'N ms'),
})

/** Runs `code` with its preparation forced `where`; `posted`: the checker-thread requests it made. */
async function runForced(rt: Awaited<ReturnType<typeof testRuntime>>, code: string, where: 'host' | 'thread') {
  setCheckOffPrepare(where)
  try {
    const before = poolRequestsPosted()
    const result = await rt.runCode(code)
    return { result, posted: poolRequestsPosted() - before }
  } finally {
    setCheckOffPrepare('host')
  }
}

describe('check-off programs prepared in the host', () => {
  // First in this file (a process of its own): no thread has been started by anything before it.
  it('a runtime whose programs all pass the gate never starts a checker thread', async () => {
    const rt = await testRuntime({ tools: basicTools })
    for (let i = 0; i < 20; i++) {
      const r = await rt.runCode(`const r = await tools.add({ a: ${i}, b: 1 })\nr`)
      expect(r.value).toBe(i + 1)
    }
    for (const p of PROGRAMS.filter((p) => p.name !== 'a syntax error, with its line and column')) p.expect(await rt.runCode(p.code))
    expect(poolThreadsStarted()).toBe(0)
    expect(poolRequestsPosted()).toBe(0)
  })

  it.each(PROGRAMS)('$name: the same run prepared in the host as in the thread', async ({ code, expect: check }) => {
    expect(hostPrepareAdmits(code)).toBe(true)
    const rt = await testRuntime({ tools: basicTools })
    const inThread = await runForced(rt, code, 'thread')
    const inHost = await runForced(rt, code, 'host')
    check(inHost.result)
    check(inThread.result)
    expect(seen(inHost.result)).toEqual(seen(inThread.result))
    expect(inThread.posted).toBe(1)
    // The syntax error is esbuild's to word (oxc is not asked): that one goes to the thread from the host too.
    expect(inHost.posted).toBe(inHost.result.error?.kind === 'compile' && inHost.result.error.line === 2 ? 1 : 0)
  })

  it('prepares the same text, shape proof and compiled output as the thread', async () => {
    const prep = createProgramPrep()
    for (const { code } of PROGRAMS) {
      setCheckOffPrepare('thread')
      const inThread = await prep.prepare(code, false)
      setCheckOffPrepare('host')
      const inHost = await prep.prepare(code, false)
      expect(inHost).toEqual(inThread)
    }
  })

  it.each([
    ['large', `const xs = [${Array.from({ length: 8000 }, (_, i) => i).join(', ')}]\nreturn xs.length`, 8000],
    ['a `<` chain', `const xs: Array<number> = [1]\nreturn ${'xs.length < '.repeat(60)}2`, true],
  ])('a program the gate refuses (%s) runs, prepared by the thread', async (_, code, value) => {
    expect(hostPrepareAdmits(code)).toBe(false)
    const rt = await testRuntime({ tools: basicTools })
    const before = poolRequestsPosted()
    const r = await rt.runCode(code)
    expect(r.value, r.observation).toEqual(value)
    expect(poolRequestsPosted() - before).toBe(1)
    expect(poolThreadsStarted()).toBeGreaterThan(0)
  })

  it("leaves to the thread what it cannot finish here, and never throws (esbuild's turn, a deep text, a refused one)", async () => {
    await hostPrepareReady
    const deep = `return ${'('.repeat(400)}1${')'.repeat(400)}`
    for (const code of [deep, 'const a = 1\nconst b = a +* 2', `return ${'1 < '.repeat(60)}2`, 'x'.repeat(100_000)])
      await expect(prepareInHost(code, false)).resolves.toBeUndefined()
    const done = await prepareInHost('return 1 + 1', false)
    expect(done?.compiled).toMatchObject({ ok: true, by: 'oxc' })
  })

  it('a session cell is prepared by the thread, the check off', async () => {
    const rt = await testRuntime({ tools: basicTools })
    const s = rt.session()
    await s.runCode('const base = await tools.add({ a: 1, b: 1 })')
    const before = poolRequestsPosted()
    const r = await s.runCode('base + 1')
    expect(r.value).toBe(3)
    expect(poolRequestsPosted() - before).toBe(1)
  })

  it.each(['host', 'thread'] as const)(
    'an invalid regular expression is a syntax error at its line, prepared in the %s (not a wrapper to check the braces of)',
    async (where) => {
      setCheckOffPrepare(where)
      try {
        const rt = await testRuntime({ tools: basicTools })
        const r = await rt.runCode("const names = ['a(b', 'c']\nconst open = names.filter((n) => /(/.test(n))\nreturn open")
        expect(r.error).toMatchObject({ kind: 'compile', line: 2 })
        expect(r.error?.message).toMatch(/^line 2: Invalid regular expression: \/\(\/: Unterminated group/)
        expect(r.calls).toEqual([])
      } finally {
        setCheckOffPrepare('host')
      }
    },
  )
})
