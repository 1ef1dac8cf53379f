/** The seam's promises about the value a program returns: JSON text, whatever kind of value it was. */
import { answer, parsedValue, type SeamCase, same } from './context.js'
import { never, recordingHost, request } from './programs.js'

export const valueCases: SeamCase[] = [
  {
    name: 'returns the value as JSON text',
    async check(ctx) {
      const host = recordingHost()
      const problems: string[] = []
      const full = await answer(ctx.sandbox, await request('return { list: [1, "two", null], nested: { ok: true } }'), host, never())
      if (full.problem !== undefined) return [full.problem]
      const { value, problems: p } = parsedValue(full.outcome)
      problems.push(...p, ...same('value', value, { list: [1, 'two', null], nested: { ok: true } }))
      const none = await answer(ctx.sandbox, await request('const x = 1'), host, never())
      if (none.problem !== undefined) return [...problems, none.problem]
      problems.push(
        ...(none.outcome.ok
          ? same('valueJson of a program that returns nothing', none.outcome.valueJson, undefined)
          : parsedValue(none.outcome).problems),
      )
      return problems
    },
  },
  {
    name: 'a value JSON cannot hold comes back converted, with a note saying how',
    async check(ctx) {
      const got = await answer(ctx.sandbox, await request('const a: any = {}; a.a = a; return a'), recordingHost(), never())
      if (got.problem !== undefined) return [got.problem]
      const { value, problems } = parsedValue(got.outcome)
      problems.push(...same('value', value, { a: '[Circular]' }))
      const note = got.outcome.ok ? got.outcome.valueNote : undefined
      if (!note?.includes('cycle')) problems.push(`valueNote should name the cycle: got ${note}`)
      return problems
    },
  },
  {
    name: 'each kind of value comes back as JSON holds it, 100,000 records well within the limits',
    async check(ctx) {
      // Rendering a value once probed each plain object for a Map, a Set, a Date…, by a throw per probe:
      // 100,000 records then ran past the run's time.
      const body = `
        const rows = []
        for (let i = 0; i < 100_000; i++) rows.push({ id: i, name: 'row ' + i, tags: ['a'] })
        class Point { constructor(public x: number, public y: number) {} }
        const bare = Object.create(null); bare.k = 1
        return {
          count: rows.length, last: rows[rows.length - 1],
          kinds: [new Map([['a', 1]]), new Set([1, 2]), new Date(0), /x/g, new Point(1, 2), bare, { [Symbol.toStringTag]: 'Promise', p: 1 }],
        }`
      const got = await answer(ctx.sandbox, await request(body), recordingHost(), never())
      if (got.problem !== undefined) return [got.problem]
      const { value, problems } = parsedValue(got.outcome)
      return [
        ...problems,
        ...same('value', value, {
          count: 100_000,
          last: { id: 99_999, name: 'row 99999', tags: ['a'] },
          kinds: [{ a: 1 }, [1, 2], '1970-01-01T00:00:00.000Z', '/x/g', { x: 1, y: 2 }, { k: 1 }, { p: 1 }],
        }),
      ]
    },
  },
]
