/** Names declared again (with another type), a throw halfway through a turn, and a `main` every turn. */
import type { SessionCase } from '../case.js'

export const cases: SessionCase[] = [
  {
    name: 'a name redeclared with another type: later turns see the new type',
    turns: [
      { code: 'const result = await tools.list_orders({})\nresult.length', expect: { value: 5, calls: ['list_orders'] } },
      { code: "const result = 'five orders'\nresult.toUpperCase()", expect: { value: 'FIVE ORDERS' } },
      { code: 'result.length', expect: { value: 11 } },
      {
        code: 'return result.map((o) => o.id)',
        expect: { stopped: { kind: 'type', message: /Property 'map' does not exist on type '("five orders"|string)'/ } },
      },
    ],
  },
  {
    name: 'a throw halfway through a turn keeps what was assigned before it; the failed line is retried',
    turns: [
      {
        code: `const config = { retries: 3, region: 'eu' }
const user = await tools.get_user({ id: 'u1' })
const other = await tools.get_user({ id: 'missing' })
console.log('not reached', other.name)`,
        expect: { failed: /no such user/, calls: ['get_user', 'get_user'] },
      },
      { code: 'return { retries: config.retries, name: user.name }', expect: { value: { retries: 3, name: 'Ana' }, calls: [] } },
      { code: "const other = await tools.get_user({ id: 'u2' })\nother.name", expect: { value: 'Bo', calls: ['get_user'] } },
    ],
    executions: { get_user: 3 },
  },
  {
    name: 'a loop that throws keeps its partial accumulation',
    turns: [
      {
        code: `const names: string[] = []
for (const id of ['u1', 'missing', 'u2']) {
  const u = await tools.get_user({ id })
  names.push(u.name)
}`,
        expect: { failed: /ENOENT|no such user/ },
      },
      { code: 'names', expect: { value: ['Ana'] } },
    ],
  },
  {
    name: 'every turn defines its own `main` (lone, returned, export default)',
    turns: [
      {
        code: `async function main() {
  const w = await tools.get_weather({ city: 'Oslo' })
  return w.tempC
}`,
        expect: { value: -3, calls: ['get_weather'] },
      },
      {
        code: `async function main() {
  const w = await tools.get_weather({ city: 'Rome' })
  return w.conditions
}
return await main()`,
        expect: { value: 'sunny', calls: ['get_weather'] },
      },
      { code: "export default async function main() {\n  return 'third'\n}", expect: { value: 'third', calls: [] } },
    ],
    executions: { get_weather: 2 },
  },
]
