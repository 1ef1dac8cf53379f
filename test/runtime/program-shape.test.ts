// The programs models write, as they write them, through a real runtime on the isolate backend: shapes
// (fences, export default, a lone main, un-awaited IIFEs, a bare last expression, imports), calls left
// pending, rendering, the standard globals. The same cases run in a container: test/docker/program-shape.test.ts.
import { describe, expect, it } from 'vitest'
import { SHAPE_CASES, shapeTools } from '../support/shape-cases.js'
import { testRuntime } from '../support/runtime.js'

describe('program shapes and rendering (isolate)', () => {
  const sent: string[] = []
  for (const c of SHAPE_CASES) {
    it(c.name, async () => {
      const rt = await testRuntime({ tools: shapeTools(sent) })
      c.check(await rt.runCode(c.code))
    })
  }

  it('sends 3 of 3 e-mails from users.forEach(async …), every time', async () => {
    const mine: string[] = []
    const rt = await testRuntime({ tools: shapeTools(mine) })
    const counts: number[] = []
    for (let i = 0; i < 25; i++) {
      mine.length = 0
      const r = await rt.runCode("['a@x', 'b@x', 'c@x'].forEach(async (to) => { await tools.send_email({ to }) })")
      expect(r.error).toBeNull()
      counts.push(mine.length)
    }
    expect(counts).toEqual(Array(25).fill(3))
  })

  it('with the type check on, the checker and the compiler see the same normalised text', async () => {
    const rt = await testRuntime({ tools: shapeTools([]), typecheck: 'error' })
    const r = await rt.runCode(
      '```ts\nexport default async function main() {\n  const u = await tools.get_user({ id: 9 })\n  return u.name\n}\n```',
    )
    expect(r.error, r.observation).toBeNull()
    expect(r.value).toBe('user9')
  })

  it('an `await` that ends its line awaits the next one, with the check on and off (one statement, not two)', async () => {
    // Formatters and models alike break long lines after `await`; read as a script, TypeScript took that
    // `await` for an identifier and the last-expression rule then broke the program.
    const code = 'const u = await\n  tools.get_user({ id: 4 })\nconsole.log(u.name)\nconst v = await\ntools.get_user({ id: 5 })'
    for (const typecheck of ['error', 'off'] as const) {
      const rt = await testRuntime({ tools: shapeTools([]), typecheck })
      const r = await rt.runCode(code)
      expect(r.error, `${typecheck}: ${r.observation}`).toBeNull()
      expect(r.logs.map((l) => l.text)).toEqual(['user4'])
      const last = await rt.runCode('const v = await\n  tools.get_user({ id: 5 })\nv.name')
      expect(last.value, `${typecheck}: ${last.observation}`).toBe('user5')
    }
  })

  it('a failing line that JavaScript joined to the line before it says which `;` splits them, with the check on and off', async () => {
    const joined = [
      'const u = await tools.get_user({ id: 1 })\n({ name: u.name })',
      'const u = await tools.get_user({ id: 1 })\n`hello ${u.name}`',
      'const u = await tools.get_user({ id: 1 })\nconst tags = u.name\n// the count\n[tags].length',
    ]
    for (const typecheck of ['error', 'off'] as const) {
      const rt = await testRuntime({ tools: shapeTools([]), typecheck })
      for (const code of joined) {
        const r = await rt.runCode(code)
        expect(r.ok, `${typecheck}: ${code}`).toBe(false)
        const prev = code.split('\n').length === 2 ? 1 : 2
        expect(r.observation, `${typecheck}: ${code}`).toContain(`so JavaScript reads them as one statement`)
        expect(r.observation, `${typecheck}: ${code}`).toContain(`end line ${prev} with \`;\``)
      }
      // Separate statements, and a failure elsewhere: no such hint.
      const apart = await rt.runCode('const u = await tools.get_user({ id: 1 });\n({ name: u.name })')
      expect(apart.value).toEqual({ name: 'user1' })
      const other = await rt.runCode("const u = await tools.get_user({ id: 1 })\nif (u) throw new Error('no')\n;[u].length")
      expect(other.ok).toBe(false)
      expect(other.observation).not.toContain('one statement')
    }
  })

  it('--json form: a console flood is in the JSON once, not once per log and once per event', async () => {
    const rt = await testRuntime({ tools: [], limits: { maxOutputBytes: 256 * 1024 } })
    const r = await rt.runCode("for (let i = 0; i < 100000; i++) console.log('line ' + i + ' ' + 'x'.repeat(40))")
    const json = JSON.stringify(r)
    const consoleBytes = r.logs.reduce((n, l) => n + l.text.length + 1, 0)
    expect(consoleBytes).toBeLessThanOrEqual(256 * 1024 + 200)
    // logs carry each line once; events fold the console stretch into one marker naming the logs indices.
    expect(json.length).toBeLessThan(consoleBytes * 1.6 + 64 * 1024)
    const parsed = JSON.parse(json) as { events: { type: string; data: { logs?: [number, number] } }[] }
    const markers = parsed.events.filter((e) => e.type === 'console')
    expect(markers).toHaveLength(1)
    expect(markers[0]!.data.logs).toEqual([0, r.logs.length])
    // The in-memory result keeps every event.
    expect(r.events.filter((e) => e.type === 'console')).toHaveLength(r.logs.length)
  })
})
