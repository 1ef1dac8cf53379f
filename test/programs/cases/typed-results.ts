/** Tools with an `output` schema (get_weather, the workspace tools): typed all the way, and checked. */
import type { ProgramCase } from '../case.js'

export const cases: ProgramCase[] = [
  {
    name: 'a typed field read',
    code: "const w = await tools.get_weather({ city: 'Oslo' })\nreturn `${w.city}: ${w.tempC}°C, ${w.conditions}`",
    expect: { value: 'Oslo: -3°C, snow' },
  },
  {
    name: 'typed results sorted and summarised',
    code: "const cities = ['Oslo', 'Rome', 'Paris']\nconst ws = await Promise.all(cities.map((city) => tools.get_weather({ city })))\nws.sort((a, b) => b.tempC - a.tempC)\nreturn ws.map((w) => w.city)",
    expect: { value: ['Rome', 'Paris', 'Oslo'] },
  },
  {
    name: 'a workspace file read as text',
    code: "const text = await tools.read_file({ path: 'README.md' })\nreturn text.split('\\n').filter((l) => l.startsWith('TODO')).length",
    expect: { value: 2 },
  },
  {
    name: 'list_dir entries filtered by type',
    code: "const entries = await tools.list_dir({ path: 'src' })\nreturn entries.filter((e) => e.type === 'file').map((e) => e.name)",
    expect: { value: ['a.ts', 'b.ts', 'c.ts'] },
  },
  {
    name: 'glob then stat',
    code: "const files = await tools.glob({ pattern: 'src/*.ts' })\nconst sizes = await Promise.all(files.map((path) => tools.stat({ path })))\nreturn sizes.every((s) => s.size > 0)",
    expect: { value: true },
  },
  {
    name: 'JSON.parse of a read file',
    code: "const pkg = JSON.parse(await tools.read_file({ path: 'package.json' }))\nreturn `${pkg.name}@${pkg.version}`",
    expect: { value: 'demo@1.2.3' },
  },
  {
    name: 'bash output parsed',
    code: "const r = await tools.bash({ command: 'ls src | wc -l' })\nreturn Number(r.stdout.trim())",
    expect: { value: 3 },
  },
  {
    name: 'a typed result narrowed by a union field',
    code: "const r = await tools.bash({ command: 'true' })\nif (r.denied) return `denied: ${r.denied}`\nreturn r.exit_code === 0 ? 'ok' : 'failed'",
    expect: { value: 'ok' },
  },
]
