/** The seam's promises about sessions: a realm kept between runs, lost realms, the entropy replay. */
import { answer, failedWith, type SeamCase, type SeamContext, same, parsedValue } from './context.js'
import { never, recordingHost, type RequestOptions, request } from './programs.js'

const sessions = (c: { sessions: boolean }) => c.sessions
let ids = 0
const sessionId = (what: string) => `seam-${what}-${process.pid}-${++ids}`

/** One session run's value, or its problems. */
async function inSession(
  ctx: SeamContext,
  body: string,
  options: RequestOptions,
): Promise<{ value: unknown; problems: string[]; clock?: number[] }> {
  const got = await answer(ctx.sandbox, await request(body, options), recordingHost(), never())
  if (got.problem !== undefined) return { value: undefined, problems: [got.problem] }
  return { ...parsedValue(got.outcome), ...(got.outcome.clock ? { clock: got.outcome.clock } : {}) }
}

export const sessionCases: SeamCase[] = [
  {
    name: "a session's realm keeps its bindings between runs, apart from other runs",
    offered: sessions,
    async check(ctx) {
      const id = sessionId('keep')
      const first = await inSession(ctx, 'let n = 40\nfunction inc() { return ++n }\nclass P { constructor(public x: number) {} }', {
        session: { id, realm: 'new' },
      })
      const second = await inSession(ctx, 'inc()\nconst p = new P(await tools.add({ a: 3, b: 4 }))\nreturn inc()', {
        session: { id, realm: 'existing' },
      })
      const third = await inSession(ctx, 'return [n, p instanceof P, p.x]', { session: { id, realm: 'existing' } })
      const stateless = await inSession(ctx, 'return typeof (globalThis as any).inc', {})
      await ctx.sandbox.endSession?.(id)
      return [
        ...first.problems,
        ...second.problems,
        ...same('value after two increments', second.value, 42),
        ...third.problems,
        ...same('bindings in a later run', third.value, [42, true, 7]),
        ...stateless.problems,
        ...same("a stateless run's view of the session's function", stateless.value, 'undefined'),
      ]
    },
  },
  {
    name: 'a realm it does not hold, or one ended, answers session_lost and runs nothing',
    offered: sessions,
    async check(ctx) {
      const problems: string[] = []
      const host = recordingHost()
      const lost = async (what: string, id: string) => {
        const got = await answer(
          ctx.sandbox,
          await request('await tools.add({ a: 1, b: 1 })\nreturn 1', { session: { id, realm: 'existing' } }),
          host,
          never(),
        )
        problems.push(...(got.problem !== undefined ? [got.problem] : failedWith(got.outcome, 'session_lost')).map((p) => `${what}: ${p}`))
      }
      await lost('a session never seen', sessionId('unknown'))
      const id = sessionId('ended')
      const made = await inSession(ctx, 'let kept = 1', { session: { id, realm: 'new' } })
      problems.push(...made.problems)
      await ctx.sandbox.endSession?.(id)
      await ctx.sandbox.endSession?.(id)
      await lost('after endSession', id)
      return [...problems, ...same('calls made by runs in a lost realm', host.calls.length, 0)]
    },
  },
  {
    name: 'the entropy replays: the same seed, the same Math.random; the clock read back in order',
    offered: sessions,
    async check(ctx) {
      const [a, b] = [sessionId('seed-a'), sessionId('seed-b')]
      const draw = 'return [Math.random(), Math.random(), Math.random()]'
      const one = await inSession(ctx, draw, { session: { id: a, realm: 'new' }, seed: 'same seed' })
      const two = await inSession(ctx, draw, { session: { id: b, realm: 'new' }, seed: 'same seed' })
      const other = await inSession(ctx, draw, { session: { id: b, realm: 'new' }, seed: 'another seed' })
      const start = Date.now()
      const times = await inSession(ctx, 'return [Date.now(), Date.now(), Date.now(), Date.now()]', {
        session: { id: a, realm: 'existing' },
        clock: [1000, 2000, -1],
      })
      for (const id of [a, b]) await ctx.sandbox.endSession?.(id)
      const problems = [...one.problems, ...two.problems, ...other.problems, ...times.problems]
      problems.push(...same('Math.random in a new realm with the same seed', two.value, one.value))
      if (JSON.stringify(other.value) === JSON.stringify(one.value)) problems.push('another seed drew the same numbers')
      const read = times.value as number[] | undefined
      problems.push(...same('Date.now replayed', read?.slice(0, 3), [1000, 2000, 2000]))
      if (!((read?.[3] ?? 0) >= start)) problems.push(`past the replay Date.now is the real clock: got ${read?.[3]}`)
      problems.push(...same('the clock the outcome lists (run-length decoded)', decode(times.clock), read))
      return problems
    },
  },
]

/** The outcome's clock without its run-length encoding (a negative -k repeats the value before it k more times). */
function decode(clock: number[] | undefined): number[] | undefined {
  if (!clock) return undefined
  const out: number[] = []
  for (const x of clock) {
    if (x >= 0) out.push(x)
    else for (let i = 0; i < -x; i++) out.push(out.at(-1) ?? 0)
  }
  return out
}
