/** The seam's promises about starting, answering, tool calls and errors. */
import { locateInSource } from '../../../runtime/compile.js'
import type { SandboxRunRequest } from '../../../sandbox/types.js'
import { answer, failedWith, type SeamCase, type SeamContext, same, parsedValue } from './context.js'
import { compiled, never, recordingHost, request } from './programs.js'

export const runCases: SeamCase[] = [
  {
    name: 'start never throws: an unstartable backend answers sandbox_unavailable',
    async check(ctx) {
      const problems: string[] = []
      const broken = ctx.unstartable()
      try {
        await broken.start()
        await broken.start()
      } catch (e) {
        problems.push(`start threw: ${e instanceof Error ? e.message : String(e)}`)
      }
      const host = recordingHost()
      const got = await answer(broken, await request('return await tools.add({ a: 1, b: 2 })'), host, never())
      if (got.problem !== undefined) problems.push(got.problem)
      else {
        problems.push(...failedWith(got.outcome, 'sandbox_unavailable'))
        if (!got.outcome.ok) problems.push(...same('its code', got.outcome.error.code, 'SANDBOX_UNAVAILABLE'))
      }
      problems.push(...same('calls made by a backend that could not start', host.calls.length, 0))
      await broken.close().catch((e: unknown) => problems.push(`close threw: ${String(e)}`))
      return problems
    },
  },
  {
    name: 'run never rejects, whatever the program is',
    async check(ctx) {
      const problems: string[] = []
      const host = recordingHost()
      const bad = { ...(await request('return 1')), js: '(async function () { return ) })' }
      const odd = await request('throw { get message() { throw new Error("no message") }, get name() { throw 1 } }')
      for (const [what, req] of [
        ['JS that does not parse', bad],
        ['a throw whose message throws', odd],
      ] as const) {
        const got = await answer(ctx.sandbox, req, host, never())
        if (got.problem !== undefined) problems.push(`${what}: ${got.problem}`)
        else if (got.outcome.ok) problems.push(`${what}: answered ok`)
      }
      return problems
    },
  },
  {
    name: 'runs are kept apart: what one run changes, the next does not see',
    async check(ctx) {
      const host = recordingHost()
      const first = await answer(
        ctx.sandbox,
        await request('(globalThis as any).leak = 1; (Object.prototype as any).polluted = 1'),
        host,
        never(),
      )
      const next = await answer(ctx.sandbox, await request('return [typeof (globalThis as any).leak, "polluted" in {}]'), host, never())
      if (first.problem !== undefined) return [first.problem]
      if (next.problem !== undefined) return [next.problem]
      const { value, problems } = parsedValue(next.outcome)
      return [...problems, ...same("the next run's view", value, ['undefined', false])]
    },
  },
  {
    name: 'tool calls reach the host in issue order as JSON text, and their answers come back',
    async check(ctx) {
      const host = recordingHost()
      const body = `
        const all = await Promise.all([
          tools.slow({ id: 'first', ms: 200 }),
          tools.echo({ id: 'second', nested: { list: [1, 'é', null] } }),
          tools.add({ a: 2, b: 3 }),
        ])
        let caught
        try { await tools.fail({ path: 'x' }) } catch (e) { caught = [e instanceof ToolCallError, e.name, e.toolName, e.code, e.message] }
        return { all, caught }`
      const got = await answer(ctx.sandbox, await request(body), host, never())
      if (got.problem !== undefined) return [got.problem]
      const { value, problems } = parsedValue(got.outcome)
      problems.push(
        ...same(
          'calls in the order the host saw them',
          host.calls.map((c) => c.name),
          ['slow', 'echo', 'add', 'fail'],
        ),
        ...same(
          'arguments as JSON text',
          host.calls.map((c) => JSON.parse(c.argsJson)),
          [{ id: 'first', ms: 200 }, { id: 'second', nested: { list: [1, 'é', null] } }, { a: 2, b: 3 }, { path: 'x' }],
        ),
        ...same('answers as the program saw them', value, {
          all: ['first', { id: 'second', nested: { list: [1, 'é', null] } }, 5],
          caught: [true, 'ToolCallError', 'fail', 'EACCES', 'denied by the test host'],
        }),
      )
      return problems
    },
  },
  {
    name: 'JS the backend cannot parse is a compile error',
    async check(ctx) {
      const unparsed = { ...(await request('return 1')), js: '(async function () { return ) })' }
      return failedKind(ctx, unparsed, 'compile', /./)
    },
  },
  {
    name: 'a thrown value that is not an Error is a runtime error naming it',
    check: async (ctx) => failedKind(ctx, await request('throw "plain words"'), 'runtime', /plain words/),
  },
  {
    name: 'an unhandled rejection ends the run as a runtime error',
    async check(ctx) {
      const body = 'Promise.reject(new Error("later"))\nawait new Promise((r) => setTimeout(r, 100))\nreturn 1'
      return failedKind(ctx, await request(body), 'runtime', /unhandled.*later/)
    },
  },
  {
    name: 'an error carries a guest stack that leads to its line',
    async check(ctx) {
      const body = 'const a = 1\n\nthrow new RangeError("out of range")'
      const got = await answer(ctx.sandbox, await request(body), recordingHost(), never())
      if (got.problem !== undefined) return [got.problem]
      const problems = failedWith(got.outcome, 'runtime')
      if (got.outcome.ok) return problems
      problems.push(...same('message', got.outcome.error.message, 'RangeError: out of range'))
      if (typeof got.outcome.error.stack !== 'string') return [...problems, 'no stack']
      problems.push(...same('line the stack leads to', locateInSource(await compiled(body), got.outcome.error.stack)?.line, 3))
      return problems
    },
  },
]

/** The run fails with `kind` and a message that matches. */
async function failedKind(ctx: SeamContext, req: SandboxRunRequest, kind: string, message: RegExp): Promise<string[]> {
  const got = await answer(ctx.sandbox, req, recordingHost(), never())
  if (got.problem !== undefined) return [got.problem]
  const problems = failedWith(got.outcome, kind)
  if (!got.outcome.ok && !message.test(got.outcome.error.message))
    problems.push(`message: got ${got.outcome.error.message}, want ${message}`)
  return problems
}
