/** Independent calls together, and the async-forEach trap (issue 11 req. 3). */
import type { ProgramCase } from '../case.js'

export const cases: ProgramCase[] = [
  {
    name: 'Promise.all over a list',
    code: 'const users = await tools.list_users()\nconst full = await Promise.all(users.map((u) => tools.get_user({ id: u.id })))\nreturn full.map((u) => u.email)',
    expect: { value: ['u1@example.com', 'u2@example.com', 'u3@example.com'] },
  },
  {
    name: 'Promise.allSettled keeps going past a failure',
    code: "const ids = ['u1', 'missing', 'u2']\nconst results = await Promise.allSettled(ids.map((id) => tools.get_user({ id })))\nreturn results.map((r) => r.status)",
    expect: { value: ['fulfilled', 'rejected', 'fulfilled'] },
  },
  {
    name: 'forEach(async …) still sends every e-mail, and says how to wait',
    code: "const users = await tools.list_users()\nusers.forEach(async (u) => {\n  await tools.send_email({ to: `${u.id}@example.com`, subject: 'Hello' })\n})\nreturn 'queued'",
    expect: { value: 'queued', calls: ['list_users', 'send_email', 'send_email', 'send_email'], note: /for…of|for \(const|Promise\.all/ },
  },
  {
    name: 'a sequential for…of with await',
    code: "const sent = []\nfor (const to of ['a@x', 'b@x']) sent.push((await tools.send_email({ to, subject: 'Hi' })).to)\nreturn sent",
    expect: { value: ['a@x', 'b@x'] },
  },
  {
    name: 'an MCP write after reads, in order',
    code: "const open = await tools.github__list_issues({ owner: 'o', repo: 'r', state: 'open' })\nconst bugs = open.filter((i) => i.labels.some((l) => l.name === 'bug'))\nfor (const b of bugs) await tools.github__add_issue_comment({ owner: 'o', repo: 'r', issue_number: b.number, body: 'Triaged.' })\nreturn bugs.map((b) => b.number)",
    expect: { value: [7], calls: ['github__list_issues', 'github__add_issue_comment'] },
  },
]
