/** Typical mistakes: stopped before any tool call, with one message that names the fix. */
import type { ProgramCase } from '../case.js'

const type = (message: RegExp, line?: number) => ({ stopped: { kind: 'type' as const, message, ...(line ? { line } : {}) } })

export const cases: ProgramCase[] = [
  {
    name: 'a misspelled tool',
    code: "await tools.slack__slack_post_message({ channel_id: 'C1', text: 'deploying' })\nconst w = await tools.get_wether({ city: 'Oslo' })\nreturn w",
    expect: type(/`tools\.get_wether` does not exist\. Did you mean tools\.get_weather/, 2),
  },
  {
    name: 'an MCP tool called without its server prefix',
    code: "const issues = await tools.list_issues({ owner: 'o', repo: 'r' })\nreturn issues",
    expect: type(/Did you mean .*tools\.github__list_issues/),
  },
  {
    name: 'a hyphenated tool name suggested in a form that can be written',
    code: "return await tools.fetch_page({ url: 'https://example.com' })",
    expect: type(/Did you mean tools\["fetch-page"\]/),
  },
  {
    name: 'a missing required field',
    code: "await tools.slack__slack_post_message({ channel_id: 'C1', text: 'hi' })\nawait tools.github__create_issue({ owner: 'o', title: 'Bug' })",
    expect: type(/Property 'repo' is missing/, 2),
  },
  {
    name: 'a wrong argument type',
    code: "return await tools.github__get_issue({ owner: 'o', repo: 'r', issue_number: '7' })",
    expect: type(/Type 'string' is not assignable to type 'number'/),
  },
  {
    name: 'a literal outside an enum',
    code: "return await tools.lookup_rates({ country: 'uk' })",
    expect: type(/`country` must be one of "US", "DE", "FR", "JP" \(enum\); it is "uk"/),
  },
  {
    name: 'reading through a field a typed result does not have',
    code: "const w = await tools.get_weather({ city: 'Oslo' })\nconst parts = w.condition.split(' ')\nreturn parts",
    expect: type(/Property 'condition' does not exist on type .*Did you mean 'conditions'/, 2),
  },
  {
    name: 'a missing field only read: certainly undefined, so stopped too (issue 35)',
    code: "const w = await tools.get_weather({ city: 'Oslo' })\nreturn w.humidity ?? 'unknown'",
    expect: type(/`humidity` is not a field of the result of tools\.get_weather/, 2),
  },
  {
    name: 'a typo in an optional field of a closed schema',
    code: "return await tools.get_weather({ city: 'Oslo', unit: 'metric' })",
    expect: type(/'unit' does not exist/),
  },
  {
    name: 'a forgotten await, property read',
    code: "const w = tools.get_weather({ city: 'Oslo' })\nreturn w.tempC",
    expect: type(/Property 'tempC' does not exist on type 'Promise<.*Did you forget `await`\?/, 2),
  },
  {
    name: 'a forgotten await, passed on as a value',
    code: "const w = tools.get_weather({ city: 'Oslo' })\nconst t: number = w\nreturn t",
    expect: type(/Did you forget `await`\?/, 2),
  },
  {
    name: 'a forgotten await on an untyped result, method call',
    code: 'const users = tools.list_users()\nreturn users.map((u) => u.name)',
    expect: type(/on type 'Promise<unknown>'.*Did you forget `await`\?/),
  },
  {
    name: 'a positional string instead of the argument object',
    code: "return await tools.read_file('README.md')",
    expect: type(/Argument of type 'string' is not assignable to parameter of type '\{ path: string; \}'/),
  },
  {
    name: 'a tool called without any argument when it needs one',
    code: 'return await tools.get_weather()',
    expect: type(/Expected 1 arguments, but got 0/),
  },
  {
    name: 'await inside a non-async callback',
    code: "const names = []\n;['u1', 'u2'].forEach((id) => {\n  const u = await tools.get_user({ id })\n  names.push(u.name)\n})\nreturn names",
    expect: { stopped: { kind: 'compile', message: /Make the callback `async`, or better, loop with `for \(const x of xs\)/ } },
  },
  {
    name: 'a method a typed result does not have',
    code: "const w = await tools.get_weather({ city: 'Oslo' })\nreturn w.conditions.toUpperCas()",
    expect: type(/toUpperCas/),
  },
  {
    name: 'assigning a const',
    code: 'const total = 0\nfor (const u of await tools.list_users()) total += 1\nreturn total',
    expect: type(/Cannot assign to 'total' because it is a constant/),
  },
  {
    name: 'a value past a bound the SDK shows (@maximum 50): stopped before the run (issue 35)',
    code: "const hits = await tools.search_docs({ query: 'limits', limit: 500 })\nreturn hits.length",
    expect: type(/`limit` must be ≤ 50 \(@maximum\); it is 500/),
  },
]
