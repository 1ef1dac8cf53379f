/** The shapes models give a program (issue 11 req. 2): each runs, with the answer it meant. */
import type { ProgramCase } from '../case.js'

/** Also run on the Docker backend. */
export const docker = true

export const cases: ProgramCase[] = [
  {
    name: 'markdown fences around the code',
    code: "```typescript\nconst w = await tools.get_weather({ city: 'Oslo' })\nreturn w.tempC\n```",
    expect: { value: -3 },
  },
  {
    name: 'export default async function main',
    code: 'export default async function main() {\n  const users = await tools.list_users()\n  return users.length\n}',
    expect: { value: 3 },
  },
  {
    name: 'async function main() then main()',
    code: "async function main() {\n  const w = await tools.get_weather({ city: 'Rome' })\n  console.log(w.conditions)\n  return w.city\n}\nmain()",
    expect: { value: 'Rome', logs: ['sunny'] },
  },
  {
    name: 'a lone main that is never called',
    code: "async function main() {\n  return (await tools.get_weather({ city: 'Oslo' })).conditions\n}",
    expect: { value: 'snow' },
  },
  {
    name: 'a bare last expression is the answer (REPL style)',
    code: 'const users = await tools.list_users()\nusers.filter((u) => u.active).length',
    expect: { value: 2 },
  },
  {
    name: 'a last expression that is a promise is awaited',
    code: "tools.get_weather({ city: 'Paris' })",
    expect: { value: { city: 'Paris', tempC: 21, conditions: 'sunny' } },
  },
  {
    name: 'an un-awaited async IIFE runs to the end',
    code: "(async () => {\n  const a = await tools.get_user({ id: 'u1' })\n  const b = await tools.get_user({ id: 'u2' })\n  console.log(a.name, b.name)\n})()",
    expect: { logs: ['Ana Bo'], calls: ['get_user', 'get_user'] },
  },
  {
    name: 'an import of the SDK names is dropped',
    code: "import { tools } from 'codeact'\nreturn (await tools.get_weather({ city: 'Oslo' })).city",
    expect: { value: 'Oslo' },
  },
]
