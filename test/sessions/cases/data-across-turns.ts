/** Data fetched once and worked on over later turns: no turn fetches it again. */
import type { SessionCase } from '../case.js'

export const cases: SessionCase[] = [
  {
    name: 'orders: load in turn 1, aggregate in turn 2, a helper of turn 1 in turn 3',
    turns: [
      {
        code: `const orders = await tools.list_orders({ since: '2026-11-01' })
const money = (n: number) => \`$\${n.toFixed(2)}\`
function totalOf(list: { amount: number }[]) {
  return list.reduce((sum, o) => sum + o.amount, 0)
}
console.log(\`loaded \${orders.length} orders\`)
orders.length`,
        expect: { value: 5, logs: ['loaded 5 orders'], calls: ['list_orders'] },
      },
      {
        code: `const paid = orders.filter((o) => o.status === 'paid')
const byCustomer: Record<string, number> = {}
for (const o of paid) byCustomer[o.customer] = (byCustomer[o.customer] ?? 0) + o.amount
Object.entries(byCustomer).sort((a, b) => b[1] - a[1])`,
        expect: {
          value: [
            ['initech', 300],
            ['acme', 160],
          ],
          calls: [],
        },
      },
      {
        code: 'return { all: money(totalOf(orders)), paid: money(totalOf(paid)), share: Math.round((totalOf(paid) / totalOf(orders)) * 100) }',
        expect: { value: { all: '$595.00', paid: '$460.00', share: 77 }, calls: [] },
      },
    ],
    executions: { list_orders: 1 },
  },
  {
    name: 'a paged API drained into an array over two turns',
    turns: [
      {
        code: `const products: { sku: string; price: number }[] = []
let cursor: string | null = null
const page = await tools.fetch_page({})
products.push(...page.items)
cursor = page.next
cursor`,
        expect: { value: 'p2', calls: ['fetch_page'] },
      },
      {
        code: `while (cursor) {
  const next = await tools.fetch_page({ cursor })
  products.push(...next.items)
  cursor = next.next
}
products.map((p) => p.sku)`,
        expect: { value: ['A-1', 'A-2', 'B-1'], calls: ['fetch_page'] },
      },
      {
        code: `const cheapest = products.reduce((a, b) => (b.price < a.price ? b : a))
return \`\${cheapest.sku} at \${cheapest.price}\``,
        expect: { value: 'B-1 at 7', calls: [] },
      },
    ],
    executions: { fetch_page: 2 },
  },
  {
    name: 'a parallel fetch destructured with top-level await',
    turns: [
      {
        code: `const cities = ['Oslo', 'Lisbon', 'Rome']
const [oslo, lisbon, rome] = await Promise.all(cities.map((city) => tools.get_weather({ city })))
const { tempC: osloTemp, conditions } = oslo!
return \`\${conditions} in Oslo at \${osloTemp}°C\``,
        expect: { value: 'snow in Oslo at -3°C', calls: ['get_weather', 'get_weather', 'get_weather'] },
      },
      {
        code: `const warmest = [oslo!, lisbon!, rome!].sort((a, b) => b.tempC - a.tempC)[0]!
warmest.city`,
        expect: { value: 'Lisbon', calls: [] },
      },
      { code: 'rome!.tempC - osloTemp', expect: { value: 11, calls: [] } },
    ],
    executions: { get_weather: 3 },
  },
]
