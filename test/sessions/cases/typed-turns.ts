/**
 * Typed across turns: a later turn is checked against what earlier turns assigned, with the same blocking
 * rules as any program (program/typecheck-rule.ts: what certainly fails is stopped before any call; what may
 * still work runs, with a note), and its message lets the model fix the turn in one step.
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
      {
        code: "fmtTemp('Oslo')",
        expect: { observation: /Argument of type 'string' is not assignable to parameter of type '\{ city: string; tempC: number; \}'/ },
      },
      { code: "fmtTemp(await tools.get_weather({ city: 'Oslo' }))", expect: { value: 'Oslo: -3°C', calls: ['get_weather'] } },
    ],
  },
  {
    name: "a tool's enum output keeps its type in a later turn",
    turns: [
      { code: 'const orders = await tools.list_orders({})\norders.length', expect: { value: 5 } },
      {
        code: "orders.filter((o) => o.status === 'shipped')",
        expect: { value: [], observation: /"paid" \| "refunded" \| "pending"' and '"shipped"' have no overlap/ },
      },
      { code: "orders.filter((o) => o.status === 'pending').map((o) => o.id)", expect: { value: ['o5'] } },
    ],
    executions: { list_orders: 1 },
  },
  {
    name: 'what certainly fails in a later turn is stopped: a method that is not there, a const of turn 1 assigned',
    turns: [
      { code: 'const page = await tools.fetch_page({})\npage.next', expect: { value: 'p2', calls: ['fetch_page'] } },
      {
        code: "const sorted = page.items.sortBy((i) => i.price)\nawait tools.send_email({ to: 'ops@example.com', subject: 'sorted' })",
        expect: { stopped: { kind: 'type', message: /Property 'sortBy' does not exist on type '\{ sku: string; price: number; \}\[\]'/ } },
      },
      {
        code: "page = await tools.fetch_page({ cursor: 'p2' })",
        expect: { stopped: { kind: 'type', message: /Cannot assign to 'page' because it is a constant/ } },
      },
      { code: "const page = await tools.fetch_page({ cursor: 'p2' })\npage.items.map((i) => i.sku)", expect: { value: ['B-1'] } },
    ],
    executions: { fetch_page: 2, send_email: 0 },
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
  {
    name: "turn 1's type aliases and interfaces type turn 2's annotations and catch its typo",
    turns: [
      {
        code: "type Row = { id: string; score: number }\ninterface Page { rows: Row[] }\nconst page: Page = { rows: [{ id: 'a', score: 1 }] }\npage.rows.length",
        expect: { value: 1 },
      },
      { code: "const extra: Row = { id: 'b', score: 2 }\npage.rows.push(extra)\npage.rows.map((r) => r.score)", expect: { value: [1, 2] } },
      {
        code: 'page.rows.map((r) => r.scor.toFixed(1))',
        expect: { stopped: { kind: 'type', message: /Property 'scor' does not exist on type 'Row'. Did you mean 'score'\?/ } },
      },
    ],
  },
]
