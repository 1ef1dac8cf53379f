/**
 * Multi-turn sessions as models write them (issue 15): each turn is one cell; `value` is what the cell's
 * last expression answers when run in one realm after the turns before it, `declares` lines that the
 * session's declarations hold after it. Data for session-types.test.ts and session-realm.test.ts.
 */
import type { ToolDefinition } from '../../vocabulary/types.js'

export interface Turn {
  code: string
  value?: unknown
  declares?: string[]
}

export interface Conversation {
  name: string
  turns: Turn[]
}

const sale = {
  type: 'object',
  properties: { region: { type: 'string' }, amount: { type: 'number' }, day: { type: 'string' } },
  required: ['region', 'amount', 'day'],
  additionalProperties: false,
} as const

export const SALES = [
  { region: 'EU', amount: 120, day: '2026-07-01' },
  { region: 'US', amount: 80, day: '2026-07-02' },
  { region: 'EU', amount: 300, day: '2026-08-11' },
  { region: 'APAC', amount: 150, day: '2026-09-30' },
]

export const sessionTools: ToolDefinition[] = [
  {
    name: 'query_sales',
    description: 'Sales rows of a quarter.',
    parameters: {
      type: 'object',
      properties: { quarter: { type: 'string', enum: ['Q1', 'Q2', 'Q3', 'Q4'] } },
      required: ['quarter'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: { rows: { type: 'array', items: sale }, total: { type: 'number' } },
      required: ['rows', 'total'],
      additionalProperties: false,
    },
    execute: () => ({ rows: SALES, total: SALES.length }),
  },
  {
    name: 'render_chart',
    description: 'Renders a bar chart and answers its URL.',
    parameters: {
      type: 'object',
      properties: {
        title: { type: 'string' },
        series: {
          type: 'array',
          items: {
            type: 'object',
            properties: { label: { type: 'string' }, value: { type: 'number' } },
            required: ['label', 'value'],
            additionalProperties: false,
          },
        },
      },
      required: ['title', 'series'],
      additionalProperties: false,
    },
    output: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'], additionalProperties: false },
    execute: (args) => ({ url: `https://charts.example/${encodeURIComponent(String((args as { title: string }).title))}` }),
  },
]

/** In-realm stand-ins for the tools above (session-realm.test.ts), answering what `execute` answers. */
export const REALM_TOOLS = `{
  query_sales: async () => ({ rows: ${JSON.stringify(SALES)}, total: ${SALES.length} }),
  render_chart: async (args) => ({ url: 'https://charts.example/' + encodeURIComponent(args.title) }),
}`

export const conversations: Conversation[] = [
  {
    name: 'load the data, filter it, then chart it',
    turns: [
      {
        code: "const { rows, total } = await tools.query_sales({ quarter: 'Q3' })\nconsole.log(`${total} rows`)\nrows.length",
        value: 4,
        declares: ['declare const rows: /*sdk*/ { region: string; amount: number; day: string; }[]', 'declare const total: number'],
      },
      {
        code: [
          'const big = rows.filter((r) => r.amount > 100)',
          'const byRegion = new Map<string, number>()',
          'for (const r of big) byRegion.set(r.region, (byRegion.get(r.region) ?? 0) + r.amount)',
          'Array.from(byRegion.entries())',
        ].join('\n'),
        value: [
          ['EU', 420],
          ['APAC', 150],
        ],
        declares: ['declare const byRegion: Map<string, number>'],
      },
      {
        code: [
          '```ts',
          "const chart = await tools.render_chart({ title: 'Q3 by region', series: [...byRegion].map(([label, value]) => ({ label, value })) })",
          'chart.url',
          '```',
        ].join('\n'),
        value: 'https://charts.example/Q3%20by%20region',
        declares: ['declare const chart: /*sdk*/ { url: string; }'],
      },
    ],
  },
  {
    name: 'helper functions defined once and reused',
    turns: [
      {
        code: [
          "const money = (n: number) => '$' + n.toFixed(2)",
          'export function pct(part: number, whole: number): string {',
          "  return ((part / whole) * 100).toFixed(1) + '%'",
          '}',
          'function share(region: string, rows: { region: string; amount: number }[]) {',
          '  const mine = rows.filter((r) => r.region === region).reduce((s, r) => s + r.amount, 0)',
          '  return pct(mine, rows.reduce((s, r) => s + r.amount, 0))',
          '}',
        ].join('\n'),
        declares: [
          'declare const money: (n: number) => string',
          'declare function pct(part: number, whole: number): string',
          'declare function share(region: string, rows: { region: string; amount: number; }[]): string',
        ],
      },
      {
        code: "const { rows } = await tools.query_sales({ quarter: 'Q3' })\nreturn `${money(rows[0].amount)} — EU has ${share('EU', rows)}`",
        value: '$120.00 — EU has 64.6%',
      },
      // A helper redefined: the earlier helper that calls it sees the new one (live bindings).
      {
        code: "function pct(part: number, whole: number): string {\n  return Math.round((part / whole) * 100) + ' percent'\n}\nshare('EU', rows)",
        value: '65 percent',
      },
    ],
  },
  {
    name: 'a class instance kept across turns',
    turns: [
      {
        code: [
          'class Tally {',
          '  counts: Record<string, number> = {}',
          '  add(key: string): this {',
          '    this.counts[key] = (this.counts[key] ?? 0) + 1',
          '    return this',
          '  }',
          '}',
          'const tally = new Tally()',
        ].join('\n'),
        declares: ['declare const tally: Tally'],
      },
      {
        code: "const { rows } = await tools.query_sales({ quarter: 'Q3' })\nfor (const r of rows) tally.add(r.region)\ntally.counts",
        value: { EU: 2, US: 1, APAC: 1 },
      },
      { code: "tally.add('EU').counts.EU", value: 3 },
      { code: 'tally instanceof Tally', value: true },
    ],
  },
  {
    name: 'a Map accumulated over turns',
    turns: [
      {
        code: 'const seen = new Map<string, number>()\nlet visits = 0',
        declares: ['declare const seen: Map<string, number>', 'declare let visits: number'],
      },
      { code: "seen.set('/home', 1)\nvisits++\nseen.size", value: 1 },
      { code: "seen.set('/about', 2)\nvisits += 1\nreturn { size: seen.size, visits }", value: { size: 2, visits: 2 } },
    ],
  },
]
