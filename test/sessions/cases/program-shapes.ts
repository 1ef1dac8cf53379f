/** The shapes models send programs in, inside a session: fences, export default, the last expression. */
import type { SessionCase } from '../case.js'

export const cases: SessionCase[] = [
  {
    name: 'fenced turns and an export-default turn share one session',
    turns: [
      {
        code: "```ts\nconst greeting = 'hello'\nfunction shout(s: string) {\n  return s.toUpperCase() + '!'\n}\n```",
        expect: {},
      },
      { code: '```typescript\nexport default async function main() {\n  return shout(greeting)\n}\n```', expect: { value: 'HELLO!' } },
      { code: "shout(greeting + ' world')", expect: { value: 'HELLO WORLD!' } },
    ],
  },
  {
    name: 'a turn that only defines helpers does not call them: they are for the next turns',
    turns: [
      {
        code: 'function summarize(rows: { amount: number }[]) {\n  return { n: rows.length, sum: rows.reduce((s, r) => s + r.amount, 0) }\n}',
        expect: { value: undefined, calls: [] },
      },
      { code: 'summarize(await tools.list_orders({}))', expect: { value: { n: 5, sum: 595 }, calls: ['list_orders'] } },
    ],
  },
  {
    name: 'the last expression is the answer; a mutator call is not; a return wins',
    turns: [
      { code: 'const xs = [3, 1, 2]\nxs.sort()', expect: { value: [1, 2, 3] } },
      { code: 'xs.push(4)', expect: { value: undefined } },
      { code: "if (xs.length > 3) return 'long'\nxs.length", expect: { value: 'long' } },
      { code: 'xs', expect: { value: [1, 2, 3, 4] } },
    ],
  },
]
