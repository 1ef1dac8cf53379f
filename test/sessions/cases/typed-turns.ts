/**
 * Typed across turns: a later turn is checked against what earlier turns assigned, with the same blocking
 * rules as any program, and its message lets the model fix the turn in one step.
 */
import type { SessionCase } from '../case.js'

export const cases: SessionCase[] = [
  {
    name: '`data.rows` where turn 1 assigned `{ items }`: stopped before any call, the message names `items`',
    turns: [
      { code: 'const data = await tools.fetch_page({})\ndata.items.length', expect: { value: 2, calls: ['fetch_page'] } },
      {
        code: `const skus = data.rows.map((r) => r.sku)
await tools.send_email({ to: 'ops@example.com', subject: skus.join(', ') })`,
        expect: { stopped: { kind: 'type', message: /Property 'rows' does not exist on type[^]*items/ } },
      },
      { code: "const skus = data.items.map((r) => r.sku)\nskus.join(', ')", expect: { value: 'A-1, A-2', calls: [] } },
    ],
    executions: { fetch_page: 1, send_email: 0 },
  },
  {
    name: "a helper's parameter types from turn 1 check the call in turn 2",
    turns: [
      {
        code: "function fmtTemp(w: { city: string; tempC: number }) {\n  return `${w.city}: ${w.tempC}°C`\n}\n'defined'",
        expect: { value: 'defined' },
      },
      { code: "fmtTemp('Oslo')", expect: { stopped: { kind: 'type', message: /Argument of type 'string' is not assignable/ } } },
      { code: "fmtTemp(await tools.get_weather({ city: 'Oslo' }))", expect: { value: 'Oslo: -3°C', calls: ['get_weather'] } },
    ],
  },
  {
    name: "a tool's enum output keeps its type in a later turn",
    turns: [
      { code: 'const orders = await tools.list_orders({})\norders.length', expect: { value: 5 } },
      {
        code: "orders.filter((o) => o.status === 'shipped')",
        expect: { stopped: { kind: 'type', message: /'"shipped"'|no overlap/ } },
      },
      { code: "orders.filter((o) => o.status === 'pending').map((o) => o.id)", expect: { value: ['o5'] } },
    ],
    executions: { list_orders: 1 },
  },
  {
    name: 'a turn that calls a missing name is stopped, and the session is unharmed',
    turns: [
      { code: 'const rate = 0.2\nrate', expect: { value: 0.2 } },
      { code: 'return price * rate', expect: { stopped: { kind: 'type', message: /Cannot find name 'price'/ } } },
      { code: 'const price = 50\nprice * rate', expect: { value: 10 } },
    ],
  },
  {
    name: 'an empty object and an empty array filled in a later turn (plain JavaScript, as within one program)',
    turns: [
      { code: 'const totals = {}\nconst lines = []\nlines.length', expect: { value: 0 } },
      {
        code: "totals.paid = 3\nlines.push('- paid: 3')\nreturn { totals, lines }",
        expect: { value: { totals: { paid: 3 }, lines: ['- paid: 3'] } },
      },
    ],
  },
]
