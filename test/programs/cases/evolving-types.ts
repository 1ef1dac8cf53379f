/** Variables whose type grows with their assignments: `[]`, `null`, `{}`, `let x;` — plain JavaScript. */
import type { ProgramCase } from '../case.js'

export const cases: ProgramCase[] = [
  {
    name: 'an empty array filled with push',
    code: "const lines = []\nfor (const c of ['a', 'b']) lines.push(`- ${c}`)\nreturn lines.join('\\n')",
    expect: { value: '- a\n- b' },
  },
  {
    name: 'a best-so-far starting at null',
    code: "let best = null\nfor (const city of ['Oslo', 'Rome']) {\n  const w = await tools.get_weather({ city })\n  if (best === null || w.tempC > best.tempC) best = w\n}\nreturn best?.city",
    expect: { value: 'Rome' },
  },
  {
    name: 'an object built up field by field',
    code: 'const totals = {}\ntotals.open = 2\ntotals.closed = 1\nreturn totals',
    expect: { value: { open: 2, closed: 1 } },
  },
  {
    name: 'a let declared without a value',
    code: "let label\nif (Math.max(1, 2) > 1) label = 'big'\nelse label = 'small'\nreturn label",
    expect: { value: 'big' },
  },
  {
    name: 'a counter keyed by string',
    code: "const counts = {}\nfor (const i of await tools.github__list_issues({ owner: 'o', repo: 'r', state: 'all' })) counts[i.user.login] = (counts[i.user.login] ?? 0) + 1\nreturn counts",
    expect: { value: { ana: 2, bo: 1 } },
  },
  {
    name: 'an array of mixed rows',
    code: 'const rows = []\nrows.push({ id: 1 })\nrows.push({ id: 2, extra: true })\nreturn rows.length',
    expect: { value: 2 },
  },
  {
    name: 'untyped helper parameters',
    code: 'function fmt(n, unit) { return `${n.toFixed(1)} ${unit}` }\nreturn fmt(3.14159, "m")',
    expect: { value: '3.1 m' },
  },
  {
    name: 'reduce into an evolving accumulator',
    code: "const byState = [1, 2, 3].reduce((acc, n) => { acc[n % 2 ? 'odd' : 'even'].push(n); return acc }, { odd: [], even: [] })\nreturn byState",
    expect: { value: { odd: [1, 3], even: [2] } },
  },
]
