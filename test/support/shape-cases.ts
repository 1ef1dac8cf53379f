/**
 * Programs shaped and printed the way models write them, with what the user must see. One list, run on
 * every backend (test/runtime/program-shape.test.ts on the isolate, test/docker/program-shape.test.ts in a
 * container): the prelude and the program text are the same in both, so the answers must be too.
 */
import type { RunResult, ToolDefinition } from '../../vocabulary/types.js'

export interface ShapeCase {
  name: string
  code: string
  check(r: RunResult): void
}

function fail(message: string, r: RunResult): never {
  throw new Error(`${message}\n--- observation ---\n${r.observation}`)
}
function expectValue(r: RunResult, want: unknown): void {
  if (r.error) fail(`expected a value, got an error: ${r.error.message}`, r)
  if (JSON.stringify(r.value) !== JSON.stringify(want)) fail(`value ${JSON.stringify(r.value)} is not ${JSON.stringify(want)}`, r)
}
function expectLog(r: RunResult, line: string): void {
  if (!r.logs.some((l) => l.text === line))
    fail(`no console line ${JSON.stringify(line)} in ${JSON.stringify(r.logs.map((l) => l.text))}`, r)
}
function expectIn(r: RunResult, text: string | RegExp): void {
  const ok = typeof text === 'string' ? r.observation.includes(text) : text.test(r.observation)
  if (!ok) fail(`the observation lacks ${String(text)}`, r)
}

/** The tools the cases call: an e-mail sender that records what went out, and one that always fails. */
export function shapeTools(sent: string[]): ToolDefinition[] {
  return [
    {
      name: 'send_email',
      description: 'Send an e-mail.',
      parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] },
      execute: async (args) => {
        const { to } = args as { to: string }
        // Finish out of order, so a run that does not wait would lose some.
        await new Promise((r) => setTimeout(r, 5 + Math.floor(Math.random() * 40)))
        sent.push(to)
        return { sent: to }
      },
    },
    {
      name: 'get_user',
      description: 'A user.',
      parameters: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
      execute: async (args) => ({ id: (args as { id: number }).id, name: `user${(args as { id: number }).id}` }),
    },
    {
      name: 'missing',
      description: 'Always fails with ENOENT.',
      parameters: { type: 'object' },
      execute: async () => {
        throw Object.assign(new Error('no such thing'), { code: 'ENOENT' })
      },
    },
  ]
}

export const SHAPE_CASES: ShapeCase[] = [
  // --- shapes -------------------------------------------------------------------------------------------
  {
    name: 'a markdown-fenced program runs, and its lines keep their numbers',
    code: 'Here is the program:\n```ts\nconst u = await tools.get_user({ id: 1 })\nreturn u.name\n```\nIt returns the name.',
    check: (r) => expectValue(r, 'user1'),
  },
  {
    name: 'an error in a fenced program names the line as the model wrote it',
    code: '```typescript\nconst a = 1\nconst n: any = null\nn.boom()\n```',
    check: (r) => {
      if (r.error?.kind !== 'runtime' || r.error.line !== 4) fail(`expected a runtime error on line 4, got ${JSON.stringify(r.error)}`, r)
    },
  },
  {
    name: 'export default async function main() is unwrapped and called',
    code: 'export default async function main() {\n  const u = await tools.get_user({ id: 2 })\n  return u.name\n}',
    check: (r) => expectValue(r, 'user2'),
  },
  {
    name: 'a lone async function main() {…} is called',
    code: 'async function main() {\n  const users = await Promise.all([1, 2].map((id) => tools.get_user({ id })))\n  return users.map((u) => u.name)\n}',
    check: (r) => expectValue(r, ['user1', 'user2']),
  },
  {
    name: 'main(); un-awaited at the end runs to its end',
    code: "async function main() {\n  for (const to of ['a@x', 'b@x', 'c@x']) await tools.send_email({ to })\n  return 'sent 3'\n}\nmain();",
    check: (r) => expectValue(r, 'sent 3'),
  },
  {
    name: 'main().catch(console.error) at the end runs to its end',
    code: "async function main() {\n  await tools.send_email({ to: 'a@x' })\n  await tools.send_email({ to: 'b@x' })\n  return 2\n}\nmain().catch(console.error)",
    check: (r) => expectValue(r, 2),
  },
  {
    name: 'an un-awaited async IIFE runs to its end',
    code: '(async () => {\n  const a = await tools.get_user({ id: 3 })\n  const b = await tools.get_user({ id: 4 })\n  console.log(a.name, b.name)\n})();',
    check: (r) => expectLog(r, 'user3 user4'),
  },
  {
    name: 'a bare last expression is the answer (REPL style), awaited',
    code: 'const u = await tools.get_user({ id: 5 })\nu.name.toUpperCase()',
    check: (r) => expectValue(r, 'USER5'),
  },
  {
    name: 'a bare last tool call is awaited and answered',
    code: 'tools.get_user({ id: 6 })',
    check: (r) => expectValue(r, { id: 6, name: 'user6' }),
  },
  {
    name: 'list.push(x) as the last line is not mistaken for the answer',
    code: "const out = []\nout.push('x')",
    check: (r) => {
      if (r.value !== undefined) fail('a push length was returned', r)
    },
  },
  {
    name: 'an import of the SDK names is dropped',
    code: "import { tools } from './sdk'\nimport type { Tools } from './sdk'\nreturn (await tools.get_user({ id: 7 })).name",
    check: (r) => expectValue(r, 'user7'),
  },
  {
    name: 'an import of a package is answered with what to do instead, before anything runs',
    code: "import axios from 'axios'\nawait tools.send_email({ to: 'never@x' })\nreturn (await axios.get('https://x')).data",
    check: (r) => {
      if (r.error?.kind !== 'compile' || r.error.line !== 1) fail(`expected a compile error on line 1, got ${JSON.stringify(r.error)}`, r)
      if (r.calls.length) fail('a call went out', r)
      expectIn(r, 'Remove the import; call tools as `await tools.name(args)`')
    },
  },
  // --- pending work -------------------------------------------------------------------------------------
  {
    name: 'users.forEach(async …) sends every e-mail and says which idiom to use',
    code: "const users = ['a@x', 'b@x', 'c@x']\nusers.forEach(async (to) => { await tools.send_email({ to }) })",
    check: (r) => {
      if (r.calls.length !== 3 || !r.calls.every((c) => c.ok)) fail(`expected 3 good calls, got ${r.calls.length}`, r)
      expectIn(r, 'Note: 3 tool calls were still running when the program finished')
      expectIn(r, 'await Promise.all(items.map((x) => tools.f(x)))')
    },
  },
  {
    name: 'calls chained after an un-awaited call are waited for too',
    code: "[1, 2].forEach(async (id) => {\n  const u = await tools.get_user({ id })\n  await tools.send_email({ to: u.name })\n})\nreturn 'started'",
    check: (r) => {
      expectValue(r, 'started')
      if (r.calls.filter((c) => c.name === 'send_email' && c.ok).length !== 2) fail('a chained call was dropped', r)
    },
  },
  {
    name: 'a run that returns nothing says how to return',
    code: 'const u = await tools.get_user({ id: 1 })',
    check: (r) => expectIn(r, 'end it with `return <value>`'),
  },
  {
    name: 'setTimeout works, and a pending timeout is waited for',
    code: "let done = false\nsetTimeout(() => { done = true; console.log('fired') }, 20)\nawait new Promise((r) => setTimeout(r, 5))\nreturn 'returned'",
    check: (r) => {
      expectValue(r, 'returned')
      expectLog(r, 'fired')
    },
  },
  {
    name: 'a forgotten setInterval is stopped at the end, with a note',
    code: 'let n = 0\nsetInterval(() => { n++ }, 5)\nawait new Promise((r) => setTimeout(r, 30))\nreturn n > 0',
    check: (r) => {
      expectValue(r, true)
      expectIn(r, 'a setInterval was still running when the program finished; it was stopped')
    },
  },
  // --- rendering ------------------------------------------------------------------------------------------
  {
    name: 'console.log shows Map, Set, Date, BigInt, class instances, typed arrays and holes as Node does',
    code: "class Point { constructor(public x: number, public y: number) {} }\nconsole.log(new Map([['a', 1]]), new Set([1, 'b']), new Date(0), 10n, new Point(1, 2), new Uint8Array([1, 2]), [1, , 3])",
    check: (r) =>
      expectLog(
        r,
        "Map(1) { 'a' => 1 } Set(2) { 1, 'b' } 1970-01-01T00:00:00.000Z 10n Point { x: 1, y: 2 } Uint8Array(2) [ 1, 2 ] [ 1, <1 empty item>, 3 ]",
      ),
  },
  {
    name: 'console.log shows cycles and nesting like util.inspect',
    code: "const o: any = { name: 'o', list: [1, [2, [3, [4, [5, [6]]]]]] }\no.self = o\nconsole.log(o)",
    // Four levels deep (Node stops at two, which hides most of a tool's result), broken over lines past 76 columns.
    check: (r) => expectLog(r, "<ref *1> {\n  name: 'o',\n  list: [ 1, [ 2, [ 3, [ 4, [Array] ] ] ] ],\n  self: [Circular *1]\n}"),
  },
  {
    name: 'printf directives are applied',
    code: "console.log('%s has %d items (%i%%), avg %f, %j, %o', 'cart', 3, 42.9, '1.5', { a: 1 }, [1])",
    check: (r) => expectLog(r, 'cart has 3 items (42%), avg 1.5, {"a":1}, [ 1 ]'),
  },
  {
    name: "a logged Error shows its stack in the user's line numbers, without the runtime's frames",
    code: "const a = 1\nconst e = new Error('bad thing')\nconsole.log(e)",
    check: (r) => {
      const text = r.logs[0]?.text ?? ''
      if (!text.startsWith('Error: bad thing\n    at ')) fail(`unexpected: ${text}`, r)
      if (!text.includes('program.ts:2:')) fail(`the stack is not in user lines: ${text}`, r)
      if (/prelude|glue|program\.js/.test(text)) fail(`runtime frames remain: ${text}`, r)
    },
  },
  {
    name: 'the return value keeps Map, Set, Date, BigInt and a cycle, with a note naming each conversion',
    code: "const o: any = { m: new Map([['k', 1]]), s: new Set([1, 2]), d: new Date(0), big: 10n }\no.me = o\nreturn o",
    check: (r) => {
      expectValue(r, { m: { k: 1 }, s: [1, 2], d: '1970-01-01T00:00:00.000Z', big: '10n', me: '[Circular]' })
      expectIn(r, 'Note: converted for JSON: Map→object, Set→array, Date→ISO string, BigInt→string "10n", cycle→"[Circular]"')
    },
  },
  {
    name: 'a returned caught error keeps name, message and code',
    code: 'try { await tools.missing({}) } catch (e) { return e }',
    check: (r) => expectValue(r, { name: 'ToolCallError', message: 'no such thing', toolName: 'missing', code: 'ENOENT' }),
  },
  {
    name: 'an uncaught failed call names its line',
    code: 'const u = await tools.get_user({ id: 1 })\n\nawait tools.missing({})\nreturn u',
    check: (r) => {
      if (r.error?.line !== 3) fail(`expected line 3, got ${JSON.stringify(r.error)}`, r)
      expectIn(r, 'Error (runtime, line 3): ToolCallError: no such thing')
    },
  },
  {
    name: 'a structured answer is compact JSON: short parts on one line',
    code: "return { total: 3, items: [{ id: 1, ok: true }, { id: 2, ok: false }], tags: ['a', 'b'], note: 'x'.repeat(100) }",
    check: (r) =>
      expectIn(r, 'Return value:\n{\n  "total": 3,\n  "items": [{"id":1,"ok":true},{"id":2,"ok":false}],\n  "tags": ["a","b"],\n'),
  },
  // --- standard globals -----------------------------------------------------------------------------------
  {
    name: 'URL, URLSearchParams, TextEncoder, TextDecoder, atob, btoa and structuredClone work as standard',
    code: `const u = new URL('/repos/o/r/issues?state=open', 'https://api.github.com')
u.searchParams.set('per_page', '100')
const clone = structuredClone({ when: new Date(0), tags: new Set(['x']) })
return [u.href, u.host, new URLSearchParams({ q: 'a b' }).toString(), new TextDecoder().decode(new TextEncoder().encode('héllo')),
  btoa('hi'), atob('aGk='), clone.when instanceof Date, clone.tags.has('x')]`,
    check: (r) =>
      expectValue(r, [
        'https://api.github.com/repos/o/r/issues?state=open&per_page=100',
        'api.github.com',
        'q=a+b',
        'héllo',
        'aGk=',
        'hi',
        true,
        true,
      ]),
  },
  {
    name: "what the globals return belongs to the program's realm",
    code: `const d = structuredClone(new Date(0)), b = new TextEncoder().encode('x'), m = structuredClone(new Map([[1, 2]]))
return [d instanceof Date, b instanceof Uint8Array, m instanceof Map, new URL('https://h/').searchParams instanceof URLSearchParams]`,
    check: (r) => expectValue(r, [true, true, true, true]),
  },
  {
    name: 'a timer flood stops at 1000 pending timers, the same in every backend',
    code: 'let n = 0\ntry { for (;;) { setTimeout(() => {}, 5); n++ } } catch (e) { return [n, e.name] }',
    check: (r) => expectValue(r, [1000, 'RangeError']),
  },
]
