// A Docker session's restore runs its earlier programs again in a new container. Their tool calls are
// answered from the record, but what a program did itself — a file appended with node:fs, a command run
// with child_process — happens again, on the real workspace: the restore's note must say so, run by run,
// and never claim that nothing ran again. Under runc and gVisor (runsc).
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Runtime } from '../../runtime/create-runtime.js'
import { dockerRuntimeCases } from './engine.js'
import { ownContainers } from './helpers.js'
import { workspaceRuntime } from './suite.js'

const BOMB = 'const hog: string[] = []\nwhile (true) hog.push("x".repeat(1024) + hog.length)'

for (const runtime of dockerRuntimeCases) {
  describe.skipIf(runtime.skip !== undefined)(`docker sessions: a restore says what ran again (${runtime.name})`, () => {
    let rt: Runtime
    let root: string
    beforeAll(async () => {
      ;({ rt, root } = await workspaceRuntime(runtime.option, { sessions: { memoryMb: 96 } }))
    }, 300_000)
    afterAll(async () => {
      await rt?.close()
      expect(await ownContainers()).toEqual([])
    })

    it('a program that appended with node:fs and ran a command: the restore names both, and they did happen again', async () => {
      const s = rt.session({ id: `effects-${runtime.name}` })
      const first = await s.runCode(`
        const fs = require('node:fs')
        fs.appendFileSync('visits.log', 'visit\\n')
        require('node:child_process').execSync('echo ran >> commands.log')
        const count = fs.readFileSync('visits.log', 'utf8').split('\\n').length - 1`)
      expect(first.ok).toBe(true)
      const quiet = await s.runCode('const doubled = count * 2')
      expect(quiet.ok).toBe(true)
      expect((await s.runCode(BOMB)).error?.kind).toBe('memory')

      const after = await s.runCode('return [count, doubled]')
      expect(after.ok).toBe(true)
      // The replayed program read back the file it had just appended to again: its own effects changed its state.
      expect(after.value).toEqual([2, 4])
      // The effects did happen twice …
      expect(readFileSync(path.join(root, 'visits.log'), 'utf8')).toBe('visit\nvisit\n')
      expect(readFileSync(path.join(root, 'commands.log'), 'utf8')).toBe('ran\nran\n')
      // … and the note says which run did what again, and that the quiet one did nothing of its own.
      const note = after.observation.split('\n').find((l) => l.includes('session was restored')) ?? ''
      expect(note).toMatch(/2 earlier runs ran again/)
      expect(note).toMatch(/happened again/)
      expect(note).toMatch(/run 1: appendFileSync visits\.log, execSync echo ran >> commands\.log/)
      expect(note).toMatch(/run 2 did none of that/)
      expect(note).not.toMatch(/no tool ran again/)
      await s.close()
    })

    it('a session whose programs changed nothing themselves: the note says that, and still not that nothing ran', async () => {
      const s = rt.session({ id: `quiet-${runtime.name}` })
      expect((await s.runCode('const answer = 6 * 7')).ok).toBe(true)
      expect((await s.runCode(BOMB)).error?.kind).toBe('memory')
      const after = await s.runCode('return answer')
      expect(after.value).toBe(42)
      expect(after.observation).toMatch(
        /1 earlier run ran again in a new sandbox, tool calls answered from the record; run 1 changed no file through node:fs and started no process of its own/,
      )
      await s.close()
    })
  })
}
