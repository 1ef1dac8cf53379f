/**
 * Python written by mistake is recognised wherever it starts — the first line of each case is valid
 * JavaScript (`orders = await tools.list_orders(…)`) — and answered "this is Python; write TypeScript" with
 * the line that gave it away, with the check on and off; nothing runs. A TypeScript program with a syntax
 * error is never called Python.
 */
import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import type { AnyToolDefinition } from '../../vocabulary/types.js'
import { testRuntime } from '../support/runtime.js'

let calls = 0
const tools: AnyToolDefinition[] = [
  {
    name: 'list_orders',
    description: 'Lists orders.',
    parameters: z.object({ status: z.string() }),
    annotations: { readOnlyHint: true },
    execute: () => (calls++, [{ id: 'A1', total: 120 }]),
  },
]

const FIRST = 'orders = await tools.list_orders({ status: "open" })'
const PYTHON: [string, string, number][] = [
  [
    "the issue's loop (for … in …:, if …:, print, f-string)",
    `${FIRST}\nfor o in orders:\n    if o["total"] > 100:\n        print(f"{o['id']}: {o['total']}")`,
    2,
  ],
  ['a def', `${FIRST}\ndef total(os):\n    return sum(o["total"] for o in os)\nreturn total(orders)`, 2],
  ['print and len in an if with a colon', `${FIRST}\nif len(orders) == 0:\n    print("none")`, 2],
  ['None and True in a while with a colon', `${FIRST}\nresult = None\nwhile True:\n    break`, 2],
  ['an f-string', `${FIRST}\nconsole.log(f"{len(orders)} open")`, 2],
  ['a block opened by a colon and an indent', `${FIRST}\nclass Report:\n    rows = None`, 2],
  ['try / except', `${FIRST}\ntry:\n    x = orders[0]\nexcept IndexError as e:\n    x = None`, 2],
]

const TYPESCRIPT_TYPOS: [string, string][] = [
  [
    'an unclosed object literal',
    `const orders = await tools.list_orders({ status: "open" })\nconst first = { id: orders[0].id\nif (first.id) {\n  console.log(first)\n}`,
  ],
  [
    'a stray word in a for head',
    `const orders = await tools.list_orders({ status: "open" })\nfor (const o of orders) o.total > 100 and console.log(o.id)\nreturn "True"`,
  ],
]

describe('a Python program', () => {
  for (const typecheck of ['off', 'error'] as const)
    for (const [name, code, line] of PYTHON)
      it(`is recognised from a later line: ${name} (check ${typecheck})`, async () => {
        const rt = await testRuntime({ tools, typecheck })
        const before = calls
        const r = await rt.runCode(code)
        expect(r.ok).toBe(false)
        expect(r.error?.message).toMatch(new RegExp(`^This is Python \\(line ${line}: \`[^\`]+\`\\); write TypeScript`))
        expect(r.error?.line).toBe(line)
        expect(calls).toBe(before)
      })

  for (const [name, code] of TYPESCRIPT_TYPOS)
    it(`is not what a TypeScript program with a syntax error is called: ${name}`, async () => {
      const rt = await testRuntime({ tools, typecheck: 'error' })
      const r = await rt.runCode(code)
      expect(r.ok).toBe(false)
      expect(r.error?.message).not.toContain('Python')
    })
})
