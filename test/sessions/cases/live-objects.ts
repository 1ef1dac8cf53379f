/** Values stay live objects in the session's realm: class instances, Maps, Sets, closures, enums, lets. */
import type { SessionCase } from '../case.js'

export const cases: SessionCase[] = [
  {
    name: 'a class instance kept and mutated over turns',
    turns: [
      {
        code: `class Cart {
  items = new Map<string, number>()
  add(sku: string, qty = 1) {
    this.items.set(sku, (this.items.get(sku) ?? 0) + qty)
    return this
  }
  get count() {
    let n = 0
    for (const q of this.items.values()) n += q
    return n
  }
}
const cart = new Cart().add('A-1')
cart.count`,
        expect: { value: 1 },
      },
      {
        code: `cart.add('A-2', 2).add('A-1')
return { count: cart.count, isCart: cart instanceof Cart, skus: [...cart.items.keys()] }`,
        expect: { value: { count: 4, isCart: true, skus: ['A-1', 'A-2'] } },
      },
      {
        code: `const other = new Cart()
other.add('B-1', 5)
return [cart.count, other.count, Object.getPrototypeOf(other) === Object.getPrototypeOf(cart)]`,
        expect: { value: [4, 5, true] },
      },
    ],
  },
  {
    name: 'a Map accumulated from tool results over turns',
    turns: [
      { code: 'const seen = new Map<string, number>()\nseen.size', expect: { value: 0 } },
      {
        code: `for (const hit of (await tools.search_docs({ query: 'sessions' })).hits) seen.set(hit.title, hit.score)
seen.size`,
        expect: { value: 3, calls: ['search_docs'] },
      },
      {
        code: `const more = await tools.search_docs({ query: 'restore' })
for (const hit of more.hits) seen.set(hit.title, Math.max(seen.get(hit.title) ?? 0, hit.score))
return { live: seen instanceof Map, firsts: [...seen.keys()].filter((k) => k.endsWith(' 1')) }`,
        expect: { value: { live: true, firsts: ['sessions 1', 'restore 1'] }, calls: ['search_docs'] },
      },
    ],
    executions: { search_docs: 2 },
  },
  {
    name: 'a closure keeps its private state',
    turns: [
      {
        code: `function makeCounter() {
  let n = 0
  return { next: () => ++n, peek: () => n }
}
const ids = makeCounter()
ids.next()`,
        expect: { value: 1 },
      },
      { code: 'ids.next()\nids.next()', expect: { value: 3 } },
      { code: 'ids.peek()', expect: { value: 3 } },
    ],
  },
  {
    name: 'let and var reassigned, an enum and a Set used in a later turn',
    turns: [
      {
        code: `let total = 0
var label = 'start'
enum Level { Low = 1, High = 10 }
const tags = new Set<string>(['a'])
total += Level.High
total`,
        expect: { value: 10 },
      },
      {
        code: `total += Level.Low
label = \`at \${total}\`
tags.add('b')
return { total, label, tags: [...tags], high: Level.High, name: Level[10] }`,
        expect: { value: { total: 11, label: 'at 11', tags: ['a', 'b'], high: 10, name: 'High' } },
      },
    ],
  },
  {
    name: 'a tool function kept in a binding (destructured from tools) is callable in a later turn',
    turns: [
      { code: 'const { get_weather } = tools\nconst weatherOf = tools.get_weather\ntypeof get_weather', expect: { value: 'function' } },
      {
        code: "const [a, b] = await Promise.all([get_weather({ city: 'Oslo' }), weatherOf({ city: 'Rome' })])\nreturn [a.tempC, b.tempC]",
        expect: { value: [-3, 8], calls: ['get_weather', 'get_weather'] },
      },
    ],
    executions: { get_weather: 2 },
  },
  {
    name: 'a helper redefined in a later turn is the one earlier closures call; a let they read is the current one',
    turns: [
      {
        code: `function fmt(n: number) {
  return n.toFixed(1)
}
let threshold = 10
const report = (xs: number[]) => xs.filter((x) => x > threshold).map(fmt).join(', ')
report([5, 12.25, 30])`,
        expect: { value: '12.3, 30.0' },
      },
      { code: 'function fmt(n: number) {\n  return `#${n}`\n}\nthreshold = 1\nreport([0.5, 2, 3])', expect: { value: '#2, #3' } },
    ],
  },
]
