/** Values TypeScript widens or thinks may be undefined, which run-time validation checks anyway: they run. */
import type { ProgramCase } from '../case.js'

export const cases: ProgramCase[] = [
  {
    name: 'an enum parameter from a mapped string array',
    code: "const rates = await Promise.all(['US', 'DE'].map((country) => tools.lookup_rates({ country })))\nreturn rates.map((r) => r.rate)",
    expect: {
      value: [1, 0.92],
      note: /`country` is typed string where tools\.lookup_rates expects "US" \| "DE" \| "FR" \| "JP"; the tool validates the actual value when called/,
    },
  },
  {
    name: 'an enum parameter from a variable typed string',
    code: "let country = 'FR'\nconst r = await tools.lookup_rates({ country })\nreturn r.rate",
    expect: { value: 0.92 },
  },
  {
    name: 'a widened value that is wrong is refused at run time, naming the field',
    code: "const codes = ['US', 'XX']\nconst out = []\nfor (const country of codes) {\n  try { out.push((await tools.lookup_rates({ country })).rate) } catch (e) { out.push(e.code) }\n}\nreturn out",
    expect: { value: [1, 'EINVAL'] },
  },
  {
    name: 'an enum state from a config object',
    code: "const config = { state: 'closed', owner: 'o', repo: 'r' }\nconst issues = await tools.github__list_issues(config)\nreturn issues.length",
    expect: { value: 1 },
  },
  {
    name: 'find() may be undefined',
    code: "const users = [{ id: 'u1', name: 'Ana' }, { id: 'u2', name: 'Bo' }]\nconst bo = users.find((u) => u.name === 'Bo')\nreturn bo.id",
    expect: { value: 'u2', note: /`bo` may be null or undefined here/ },
  },
  {
    name: 'a Map get used directly',
    code: "const m = new Map([['a', 1]])\nreturn m.get('a') + 1",
    expect: { value: 2 },
  },
  {
    name: 'an optional field passed where a value is required',
    code: "const opts: { city?: string } = { city: 'Oslo' }\nconst w = await tools.get_weather({ city: opts.city })\nreturn w.conditions",
    expect: { value: 'snow' },
  },
  {
    name: 'a number from a string field (a ternary of literals)',
    code: "const metric = true\nconst w = await tools.get_weather({ city: 'Rome', units: metric ? 'metric' : 'imperial' })\nreturn w.tempC",
    expect: { value: 21 },
  },
]
