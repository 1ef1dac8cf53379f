// The type check in Docker mode knows Node's types (no engine needed): the same checker, with @types/node.
import { describe, expect, it } from 'vitest'
import { createTypecheck } from '../../runtime/typecheck.js'

const SDK = 'interface Tools { echo(args: { text: string }): Promise<{ text: string }> }\ndeclare const tools: Tools;'

describe('type check with Node types (the Docker backend)', () => {
  const node = createTypecheck('error', () => SDK, { nodeTypes: true })!
  const plain = createTypecheck('error', () => SDK)!

  it('accepts what a Node program does: require, process, Buffer, import() of node: modules', async () => {
    const program = `
      const fs = require('node:fs')
      const { join } = await import('node:path')
      const ns = await import('node:fs/promises')
      const text: string = fs.readFileSync(join(process.cwd(), 'a.txt'), 'utf8')
      const entries = await ns.readdir('.')
      return { n: text.length + Buffer.byteLength('x') + entries.length, echo: (await tools.echo({ text })).text }`
    expect((await node.check(program)).count).toBe(0)
    // Without Node's types (the isolate), the same program is refused by name.
    expect((await plain.check(program)).report).toMatch(/`require` does not exist in this sandbox/)
  }, 60_000)

  it('still catches a wrong use of a Node API or of a tool', async () => {
    const bad = await node.check(
      `const fs = await import('node:fs')\nconst n: number = fs.readFileSync('a', 'utf8')\nawait tools.echo({ txt: 'x' })\nreturn n`,
    )
    // The wrong tool argument blocks; a mismatch with the program's own annotation is a note (program/typecheck-rule.ts).
    expect(bad.count).toBe(1)
    expect(bad.report).toMatch(/txt/)
    expect(bad.advisory).toMatch(/string/)
  }, 60_000)
})
