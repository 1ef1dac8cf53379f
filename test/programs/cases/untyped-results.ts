/** Results of tools without an `output` schema (64 of the 89 real MCP tools): used any way at all, they run. */
import type { ProgramCase } from '../case.js'

const UNTYPED_NOTE = /Type-check notes[^\n]*\n- line [\d, ]+: the result of tools\.\w+ has no declared type/

export const cases: ProgramCase[] = [
  {
    name: 'destructuring an untyped result',
    code: "const { name, email } = await tools.get_user({ id: 'u1' })\nreturn `${name} <${email}>`",
    expect: { value: 'Ana <u1@example.com>', note: UNTYPED_NOTE },
  },
  {
    name: 'optional chaining on an untyped result',
    code: "const user = await tools.get_user({ id: 'u1' })\nreturn user?.name ?? 'unknown'",
    expect: { value: 'Ana' },
  },
  {
    name: 'Object.entries over an untyped result',
    code: "const user = await tools.get_user({ id: 'u2' })\nconst keys = []\nfor (const [k] of Object.entries(user)) keys.push(k)\nreturn keys",
    expect: { value: ['id', 'name', 'email', 'tags'] },
  },
  {
    name: 'passing an untyped result to a typed helper',
    code: "interface User { id: string; name: string }\nfunction greet(u: User) { return `hi ${u.name}` }\nconst u = await tools.get_user({ id: 'u1' })\nreturn greet(u)",
    expect: { value: 'hi Ana' },
  },
  {
    name: 'annotating an untyped result with an interface',
    code: "interface User { id: string; name: string; email: string }\nconst u: User = await tools.get_user({ id: 'u2' })\nreturn u.email.toUpperCase()",
    expect: { value: 'U2@EXAMPLE.COM' },
  },
  {
    name: 'a cast with as',
    code: "type Issue = { number: number; title: string; state: string }\nconst issues = (await tools.github__list_issues({ owner: 'o', repo: 'r', state: 'open' })) as Issue[]\nreturn issues.map((i) => `#${i.number} ${i.title}`)",
    expect: { value: ['#7 Crash on empty input', '#9 Add dark mode'] },
  },
  {
    name: 'mapping over an untyped array result',
    code: 'const users = await tools.list_users()\nreturn users.filter((u) => u.active).map((u) => u.name)',
    expect: { value: ['Ana', 'Cy'], note: /the result of tools\.list_users has no declared type/ },
  },
  {
    name: 'many uses of one untyped result are one note line',
    code: "const found = await tools.github__search_repositories({ query: 'codeact' })\nconsole.log(found.total_count)\nconsole.log(found.items.length)\nreturn found.items[0].full_name",
    expect: {
      value: 'o/alpha',
      logs: ['2', '2'],
      note: /- line 2, 3, 4: the result of tools\.github__search_repositories has no declared type/,
    },
  },
  {
    name: 'an untyped result in a for…of',
    code: 'const res = await tools.slack__slack_list_channels({ limit: 10 })\nlet members = 0\nfor (const ch of res.channels) members += ch.num_members\nreturn members',
    expect: { value: 52 },
  },
  {
    name: 'a typeof / Array.isArray narrowing',
    code: "const page = await tools.brave_search__brave_web_search({ query: 'codeact' })\nif (typeof page === 'string') return page.split('\\n').filter((l) => l.startsWith('URL:')).length\nreturn 0",
    expect: { value: 2 },
  },
  {
    name: 'JSON.stringify of an untyped result, as a string',
    code: "const loc = await tools.google_maps__maps_geocode({ address: 'Berlin' })\nreturn JSON.stringify(loc).includes('Berlin')",
    expect: { value: true },
  },
  {
    name: 'spreading an untyped result into a new object',
    code: "const u = await tools.get_user({ id: 'u1' })\nreturn { ...u, seen: true }",
    expect: { value: { id: 'u1', name: 'Ana', email: 'u1@example.com', tags: ['admin'], seen: true } },
  },
  {
    name: 'Promise.all over untyped results, then indexing',
    code: "const [a, b] = await Promise.all([tools.get_user({ id: 'u1' }), tools.get_user({ id: 'u2' })])\nreturn [a.name, b.name].join(' & ')",
    expect: { value: 'Ana & Bo' },
  },
]
