/** What the model reads back (issue 11 req. 4): values rendered faithfully in console lines and the answer. */
import type { ProgramCase } from '../case.js'

/** Also run on the Docker backend. */
export const docker = true

export const cases: ProgramCase[] = [
  {
    name: 'a Map in console.log',
    code: "const m = new Map([['a', 1], ['b', 2]])\nconsole.log(m)\nreturn m.size",
    expect: { value: 2, logs: ["Map(2) { 'a' => 1, 'b' => 2 }"] },
  },
  {
    name: 'a Set returned becomes an array, with a note',
    code: 'return new Set([1, 2, 2, 3])',
    expect: { value: [1, 2, 3], note: /Note:.*Set/ },
  },
  {
    name: 'a Date returned becomes ISO text',
    code: "return { at: new Date('2026-01-02T03:04:05Z') }",
    expect: { value: { at: '2026-01-02T03:04:05.000Z' } },
  },
  {
    name: 'printf-style console.log',
    code: "console.log('%s has %d issues', 'o/r', 3)\nreturn null",
    expect: { logs: ['o/r has 3 issues'] },
  },
  {
    name: 'a caught error returned keeps its message and code',
    code: "try { await tools.get_user({ id: 'missing' }) } catch (e) { return e }",
    expect: { value: { name: 'ToolCallError', message: 'no such user', toolName: 'get_user', code: 'ENOENT' } },
  },
  { name: 'a BigInt returned is not lost', code: 'return { big: 2n ** 70n }', expect: { value: { big: '1180591620717411303424n' } } },
]
