/**
 * The blocking rule from the user's side (issue 35, item 1): every failure certain from the types or from a
 * constraint the SDK text shows stops the program before its first call — counted inside the tools: zero —
 * with a message naming the fix; everything that may work at run time still runs. Each case runs as a plain
 * program and in a session, where the values come from an earlier turn.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { Runtime } from '../../runtime/create-runtime.js'
import { z } from 'zod'
import { defineTool } from '../../vocabulary/define-tool.js'
import type { AnyToolDefinition } from '../../vocabulary/types.js'
import { testRuntime } from '../support/runtime.js'

const counted = { calls: 0 }
const order = z.object({ order_id: z.string(), total_cents: z.number().int(), status: z.enum(['open', 'paid', 'refunded']) })
const anOrder = (order_id: string) => ({ order_id, total_cents: 1250, status: 'paid' as const })

const tools: AnyToolDefinition[] = [
  defineTool({
    name: 'list_orders',
    description: 'Lists orders, newest first.',
    parameters: z.object({
      limit: z.number().int().min(1).max(50).optional(),
      customer: z
        .string()
        .regex(/^C[0-9]+$/)
        .min(2)
        .max(12)
        .optional(),
      tags: z.array(z.string()).min(1).max(3).optional(),
      share: z.number().gt(0).lt(1).optional(),
      contact: z.email().optional(),
      status: z.enum(['open', 'paid', 'refunded']).optional(),
    }),
    output: z.object({ orders: z.array(order), next: z.string().nullable() }),
    execute: () => {
      counted.calls++
      return { orders: [anOrder('A1'), anOrder('A2')], next: null }
    },
  }),
  defineTool({
    name: 'get_order',
    description: 'Gets one order.',
    parameters: z.object({ order_id: z.string() }),
    output: order,
    execute: ({ order_id }) => {
      counted.calls++
      return anOrder(order_id)
    },
  }),
  defineTool({
    name: 'refund',
    description: 'Refunds part of an order.',
    parameters: z.object({ order_id: z.string(), amount_cents: z.number().int().min(1) }),
    output: z.object({ refund_id: z.string() }),
    execute: ({ order_id }) => {
      counted.calls++
      return { refund_id: `R-${order_id}` }
    },
  }),
  defineTool({
    name: 'rates',
    description: 'Exchange rates by currency (an open map).',
    parameters: z.object({}),
    output: z.record(z.string(), z.number()),
    execute: () => {
      counted.calls++
      return { EUR: 1, USD: 1.1 }
    },
  }),
  defineTool({
    name: 'settle',
    description: 'Settles an order: ok, or the reason it could not.',
    parameters: z.object({ order_id: z.string() }),
    output: z.union([z.object({ ok: z.literal(true) }), z.object({ ok: z.literal(false), reason: z.string() })]),
    execute: () => {
      counted.calls++
      return { ok: false as const, reason: 'already refunded' }
    },
  }),
  {
    // As an MCP server declares it: an open JSON Schema, no output schema.
    name: 'geocode',
    description: 'Geocodes a place name.',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    execute: (args: { query: string }) => {
      counted.calls++
      return { lat: 52.52, lon: 13.4, echo: args }
    },
  },
]

/** A case: `setup` (an earlier turn in the session variant, the first lines in the plain one), then `program`. */
interface Case {
  name: string
  setup: string
  program: string
  fix: RegExp
}

const certain: Case[] = [
  {
    name: 'a field a typed result lacks',
    setup: 'const o = await tools.get_order({ order_id: "A1" })',
    program: 'return o.totl_cents / 100',
    fix: /`totl_cents` is not a field of .*did you mean `total_cents`\?/,
  },
  {
    name: 'a misnamed field passed on to a refund',
    setup: 'const order = await tools.get_order({ order_id: "A1" })',
    program: 'return await tools.refund({ order_id: order.order_id, amount_cents: order.totalCents })',
    fix: /`totalCents` is not a field of .*did you mean `total_cents`\?/,
  },
  {
    name: 'a field of an element of a typed list',
    setup: 'const { orders } = await tools.list_orders({ limit: 5 })',
    program: 'for (const o of orders) await tools.refund({ order_id: o.id, amount_cents: 100 })',
    fix: /`id` is not a field of .*did you mean `order_id`\?/,
  },
  {
    name: 'a destructured Promise',
    setup: 'const limit = 5',
    program: 'const { orders } = tools.list_orders({ limit })\nreturn orders.length',
    fix: /Did you forget `await`\?/,
  },
  {
    name: 'a destructured field the result lacks',
    setup: 'const limit = 5',
    program: 'const { order } = await tools.list_orders({ limit })\nreturn order',
    fix: /`order` is not a field of the result of tools\.list_orders .*did you mean `orders`\?/,
  },
  {
    name: 'JSON.parse of a typed object',
    setup: 'const o = await tools.get_order({ order_id: "A1" })',
    program: 'const parsed = JSON.parse(o)\nreturn parsed.total_cents',
    fix: /the result is already an object; drop JSON\.parse/,
  },
  {
    name: 'for…of over a typed object',
    setup: 'const page = await tools.list_orders({ limit: 5 })',
    program: 'for (const o of page) await tools.refund({ order_id: o.order_id, amount_cents: 100 })',
    fix: /`page` is an object, not a list.*for \(const x of page\.orders\)/,
  },
  {
    name: 'a tool passed as a callback',
    setup: 'const ids = ["A1", "A2"]',
    program: 'return await Promise.all(ids.map(tools.get_order))',
    fix: /wrap it: `ids\.map\(\(order_id\) => tools\.get_order\(\{ order_id \}\)\)`/,
  },
  {
    name: 'a literal over @maximum, after a side-effecting call',
    setup: 'const id = "A1"',
    program: 'await tools.refund({ order_id: id, amount_cents: 100 })\nreturn await tools.list_orders({ limit: 500 })',
    fix: /`limit` must be ≤ 50 \(@maximum\)/,
  },
  {
    name: 'a const holding a literal over @maximum',
    setup: 'const limit = 500',
    program: 'return await tools.list_orders({ limit })',
    fix: /`limit` must be ≤ 50 \(@maximum\)/,
  },
  {
    name: 'a fraction where @integer',
    setup: 'const id = "A1"',
    program: 'return await tools.refund({ order_id: id, amount_cents: 12.5 })',
    fix: /`amount_cents` must be a whole number \(@integer\)/,
  },
  {
    name: 'a literal under @minimum',
    setup: 'const id = "A1"',
    program: 'return await tools.refund({ order_id: id, amount_cents: 0 })',
    fix: /`amount_cents` must be ≥ 1 \(@minimum\)/,
  },
  {
    name: 'a literal at @exclusiveMaximum',
    setup: 'const limit = 5',
    program: 'return await tools.list_orders({ limit, share: 1 })',
    fix: /`share` must be < 1 \(@exclusiveMaximum\)/,
  },
  {
    name: 'a literal at @exclusiveMinimum',
    setup: 'const limit = 5',
    program: 'return await tools.list_orders({ limit, share: 0 })',
    fix: /`share` must be > 0 \(@exclusiveMinimum\)/,
  },
  {
    name: 'a string off its @pattern',
    setup: 'const limit = 5',
    program: 'return await tools.list_orders({ limit, customer: "X17" })',
    fix: /`customer` must match \^C\[0-9\]\+\$ \(@pattern\)/,
  },
  {
    name: 'a string over @maxLength',
    setup: 'const limit = 5',
    program: 'return await tools.list_orders({ limit, customer: "C1234567890123" })',
    fix: /`customer` must be at most 12 characters long \(@maxLength\)/,
  },
  {
    name: 'a string under @minLength',
    setup: 'const limit = 5',
    program: 'return await tools.list_orders({ limit, customer: "C" })',
    fix: /`customer` must be at least 2 characters long \(@minLength\)/,
  },
  {
    name: 'an empty list under @minItems',
    setup: 'const limit = 5',
    program: 'return await tools.list_orders({ limit, tags: [] })',
    fix: /`tags` must have at least 1 item \(@minItems\)/,
  },
  {
    name: 'a list over @maxItems',
    setup: 'const limit = 5',
    program: 'return await tools.list_orders({ limit, tags: ["a", "b", "c", "d"] })',
    fix: /`tags` must have at most 3 items \(@maxItems\)/,
  },
  {
    name: 'a string that is not its @format',
    setup: 'const limit = 5',
    program: 'return await tools.list_orders({ limit, contact: "ops at example.com" })',
    fix: /`contact` must match .*\(@pattern\)|`contact` must be a email \(@format\)/,
  },
  {
    name: 'a literal outside an enum',
    setup: 'const limit = 5',
    program: 'return await tools.list_orders({ limit, status: "closed" })',
    fix: /`status` must be one of "open", "paid", "refunded" \(enum\); it is "closed"/,
  },
]

const mayWork: (Case & { value: unknown; note?: RegExp })[] = [
  {
    name: 'fields of a result without an output schema',
    setup: 'const place = await tools.geocode({ query: "Berlin" })',
    program: 'return place.lat',
    fix: /./,
    value: 52.52,
    note: /has no declared type, so its uses were not checked/,
  },
  {
    name: 'an argument an open schema does not declare, noted by name',
    setup: 'const query = "Berlin"',
    program: 'const place = await tools.geocode({ query, region: "de" })\nreturn place.echo',
    fix: /./,
    value: { query: 'Berlin', region: 'de' },
    note: /`region` is not a declared parameter of tools\.geocode \(it declares `query`\)/,
  },
  {
    name: 'a key of an open map (index signature)',
    setup: 'const rates = await tools.rates({})',
    program: 'return rates.USD * 2',
    fix: /./,
    value: 2.2,
  },
  {
    name: "a field the program's own object gained",
    setup: 'const summary = { count: 0 }',
    program: 'summary.total = 5\nreturn summary.total',
    fix: /./,
    value: 5,
  },
  {
    name: 'a tool passed as a callback whose values are its arguments',
    setup: 'const wanted = [{ order_id: "A1" }]',
    program: 'const got = await Promise.all(wanted.map(tools.get_order))\nreturn got.map((o) => o.order_id)',
    fix: /./,
    value: ['A1'],
  },
  {
    name: 'a widened number within its bounds only at run time',
    setup: 'let limit = 500',
    program: 'limit = Math.min(limit, 50)\nconst page = await tools.list_orders({ limit })\nreturn page.orders.length',
    fix: /./,
    value: 2,
  },
  {
    name: 'a field one branch of a typed union has',
    setup: 'const outcome = await tools.settle({ order_id: "A1" })',
    program: 'return outcome.reason ?? "settled"',
    fix: /./,
    value: 'already refunded',
  },
  {
    name: 'JSON.parse of a string field',
    setup: 'const o = await tools.get_order({ order_id: "A1" })',
    program: 'return JSON.parse(JSON.stringify(o)).total_cents',
    fix: /./,
    value: 1250,
  },
]

let rt: Runtime
beforeAll(async () => {
  rt = await testRuntime({ tools, typecheck: 'error' })
})

describe('certain failures stop the program before its first call (plain run)', () => {
  it.each(certain)('$name', async ({ setup, program, fix }) => {
    counted.calls = 0
    const r = await rt.runCode(`${setup}\n${program}`)
    expect(r.error?.kind, r.observation).toBe('type')
    expect(r.error?.message, r.observation).toMatch(fix)
    expect(counted.calls).toBe(0)
    expect(r.calls).toEqual([])
  })
})

describe('certain failures stop the program before its first call (session, values from an earlier turn)', () => {
  it.each(certain)('$name', async ({ setup, program, fix }) => {
    const s = rt.session()
    const first = await s.runCode(setup)
    expect(first.error, first.observation).toBeNull()
    counted.calls = 0
    const r = await s.runCode(program)
    expect(r.error?.kind, r.observation).toBe('type')
    expect(r.error?.message, r.observation).toMatch(fix)
    expect(counted.calls).toBe(0)
    expect(r.calls).toEqual([])
    await s.close()
  })
})

describe('what may work at run time still runs', () => {
  it.each(mayWork)('$name (plain run)', async ({ setup, program, value, note }) => {
    const r = await rt.runCode(`${setup}\n${program}`)
    expect(r.error, r.observation).toBeNull()
    expect(r.value).toEqual(value)
    if (note) expect(r.observation).toMatch(note)
  })

  it.each(mayWork)('$name (session)', async ({ setup, program, value, note }) => {
    const s = rt.session()
    const first = await s.runCode(setup)
    expect(first.error, first.observation).toBeNull()
    const r = await s.runCode(program)
    expect(r.error, r.observation).toBeNull()
    expect(r.value).toEqual(value)
    if (note) expect(`${first.observation}\n${r.observation}`).toMatch(note)
    await s.close()
  })
})
