/** What the sandbox has and lacks, said in one line that names what to use instead. */
import type { ProgramCase } from '../case.js'

const type = (message: RegExp, line?: number) => ({ stopped: { kind: 'type' as const, message, ...(line ? { line } : {}) } })
const HAS = /The sandbox has `tools`, `console`, ES2023 built-ins and setTimeout/

export const cases: ProgramCase[] = [
  {
    name: 'fetch',
    code: "const res = await fetch('https://api.example.com/rates')\nreturn await res.json()",
    expect: type(/`fetch` does not exist in this sandbox: there is no network; call a tool instead \(tools\["fetch-page"\]/),
  },
  {
    name: 'require',
    code: "const fs = require('fs')\nreturn fs.readFileSync('README.md', 'utf8')",
    expect: type(/`require` does not exist in this sandbox: there are no modules/),
  },
  {
    name: 'process.env',
    code: 'return process.env.API_KEY',
    expect: type(/`process` does not exist in this sandbox: there is no process or environment/),
  },
  { name: 'document', code: "document.title = 'x'\nreturn 1", expect: type(HAS) },
  { name: 'Buffer', code: "return Buffer.from('hi').toString('base64')", expect: type(/TextEncoder\/TextDecoder or atob\/btoa for bytes/) },
  {
    name: 'a tool-prefix global',
    code: "const issues = await github.list_issues({ owner: 'o', repo: 'r' })\nreturn issues",
    expect: type(/`github\.list_issues` is not defined: call the tool as `await tools\.github__list_issues\(args\)`/),
  },
  {
    name: 'a tool called as a bare global',
    code: "return await get_weather({ city: 'Oslo' })",
    expect: type(/Call the tool as `await tools\.get_weather\(args\)`/),
  },
  {
    name: 'Object.groupBy (past ES2023)',
    code: 'return Object.groupBy([1, 2, 3], (n) => (n % 2 ? "odd" : "even"))',
    expect: type(/not among this sandbox's ES2023 built-ins/),
  },
  {
    name: 'a Python program',
    code: 'def main():\n    issues = tools.github__list_issues(owner="o", repo="r")\n    for i in issues:\n        print(i["title"])\n\nmain()',
    expect: { stopped: { kind: 'compile', message: /This is Python \(line 1: `def main\(\):`\); write TypeScript/ } },
  },
  {
    name: 'an unclosed brace, reported at the line that opens it',
    code: 'const users = await tools.list_users()\nfor (const u of users) {\n  console.log(u.name)\n\nreturn users.length',
    expect: { stopped: { kind: 'compile', message: /2:\d+ This '\{' is never closed: add the missing '\}'/ } },
  },
  {
    name: 'an import of a Node module says what to do instead (isolate)',
    code: "import fs from 'fs'\nreturn fs.readFileSync('x')",
    expect: { stopped: { kind: 'compile', message: /import/ } },
  },
  {
    name: 'URL and URLSearchParams',
    code: "const u = new URL('https://example.com/search?q=codeact&page=2')\nu.searchParams.set('page', '3')\nreturn [u.hostname, u.searchParams.get('page'), u.toString()]",
    expect: { value: ['example.com', '3', 'https://example.com/search?q=codeact&page=3'] },
  },
  {
    name: 'TextEncoder, atob/btoa, structuredClone',
    code: "const bytes = new TextEncoder().encode('héllo')\nconst copy = structuredClone({ a: [1, 2] })\ncopy.a.push(3)\nreturn [bytes.length, btoa('hi'), atob('aGk='), copy.a]",
    expect: { value: [6, 'aGk=', 'hi', [1, 2, 3]] },
  },
  {
    name: 'setTimeout as a sleep',
    code: 'const t0 = Date.now()\nawait new Promise((resolve) => setTimeout(resolve, 20))\nreturn Date.now() - t0 >= 15',
    expect: { value: true },
  },
  {
    name: 'a caught ToolCallError read by code',
    code: "try {\n  await tools.get_user({ id: 'missing' })\n  return 'found'\n} catch (e) {\n  if (e instanceof ToolCallError) return `${e.toolName}: ${e.code}`\n  throw e\n}",
    expect: { value: 'get_user: ENOENT' },
  },
]
