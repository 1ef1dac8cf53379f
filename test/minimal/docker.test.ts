/**
 * Minimal mode with `sandbox: 'docker'`: the persistent bash lives in a hardened codeact container with the
 * workspace mounted (runc), the editor and apply_patch write the same tree, read-only parts refuse with
 * EROFS, and no container outlives `close()`.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage, ownContainers, tempWorkspace } from '../docker/helpers.js'
import { minimalRuntime } from './support.js'

let n = 0
const use = (name: string, input: Record<string, unknown>) => ({ type: 'tool_use' as const, id: `toolu_${++n}`, name, input })

describe.skipIf(!dockerEngine.available)('Minimal mode in a Docker container (runc)', () => {
  let ws: string
  beforeAll(async () => {
    await ensureImage()
    ws = tempWorkspace()
    fs.mkdirSync(path.join(ws, 'vendor'))
    fs.writeFileSync(path.join(ws, 'vendor', 'lib.txt'), 'pinned\n')
  }, 300_000)
  afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))

  it('keeps cwd, environment and functions in the container; a timeout kills the command, restart starts afresh', async () => {
    const { rt } = await minimalRuntime({ sandbox: 'docker', shellTimeoutMs: 3_000, workspace: { root: ws, readOnly: ['vendor'] } }, ws)
    const step = async (input: Record<string, unknown>) => {
      const [answer] = await rt.executeToolCalls([use('bash', input)])
      return (answer as { content: string }).content
    }
    try {
      const steps: Array<[Record<string, unknown>, string | RegExp]> = [
        [{ command: 'test -f /.dockerenv && echo in-container; pwd' }, 'in-container\n/workspace\n'],
        [{ command: 'mkdir -p src/lib && cd src/lib' }, ''],
        [{ command: 'pwd' }, '/workspace/src/lib\n'],
        [{ command: 'export GREETING=hello; NOT_EXPORTED=kept' }, ''],
        [{ command: 'greet() { echo "$GREETING, $1 ($NOT_EXPORTED)"; }' }, ''],
        [{ command: 'greet world' }, 'hello, world (kept)\n'],
        [{ command: 'echo made > here.txt; false' }, '[exit code 1]'],
        [{ command: 'sleep 60; echo never' }, /timed out after 3000 ms/],
        [{ command: 'greet again; pwd; pgrep sleep || ls /proc | grep -c "^[0-9]"' }, /^hello, again \(kept\)\n\/workspace\/src\/lib\n/],
        [{ restart: true }, 'tool has been restarted.'],
        [{ command: 'pwd; echo "[${GREETING:-unset}]"; type greet 2>&1 | head -1' }, /^\/workspace\n\[unset\]\n.*greet: not found/],
      ]
      for (const [input, want] of steps) {
        const got = await step(input)
        if (typeof want === 'string') expect(got, JSON.stringify(input)).toBe(want)
        else expect(got, JSON.stringify(input)).toMatch(want)
      }
      expect(fs.readFileSync(path.join(ws, 'src', 'lib', 'here.txt'), 'utf8')).toBe('made\n')
      expect((await ownContainers()).length).toBe(1) // the shell's own; no runner containers in Minimal mode
    } finally {
      await rt.close()
    }
    expect(await ownContainers()).toEqual([])
  }, 120_000)

  it('the editor and apply_patch write the mounted tree; the shell sees it; read-only parts refuse with EROFS', async () => {
    const { rt } = await minimalRuntime({ sandbox: 'docker', workspace: { root: ws, readOnly: ['vendor'] } }, ws)
    const { rt: oai } = await minimalRuntime({ sandbox: 'docker', minimal: 'openai', workspace: { root: ws, readOnly: ['vendor'] } }, ws)
    try {
      const edit = async (input: Record<string, unknown>) => (await rt.callTool('str_replace_based_edit_tool', input)).content
      expect(await edit({ command: 'create', path: '/workspace/notes.md', file_text: 'one\ntwo\n' })).toMatch(/created/i)
      expect(await edit({ command: 'str_replace', path: 'notes.md', old_str: 'two', new_str: 'TWO' })).toMatch(/edited/i)
      const [cat] = await rt.executeToolCalls([use('bash', { command: 'cat notes.md' })])
      expect((cat as { content: string }).content).toBe('one\nTWO\n')

      const patch = '*** Begin Patch\n*** Update File: notes.md\n@@\n one\n-TWO\n+three\n*** End Patch\n'
      const patched = await oai.callTool('apply_patch', { input: patch })
      expect(patched.ok, patched.content).toBe(true)
      const shell = await oai.callTool('shell', { commands: ['cat /workspace/notes.md'] })
      expect(shell.content).toContain('one\\nthree\\n')

      const editDenied = await rt.callTool('str_replace_based_edit_tool', {
        command: 'create',
        path: '/workspace/vendor/x.txt',
        file_text: 'x',
      })
      expect(editDenied.ok).toBe(false)
      expect(editDenied.content).toMatch(/EROFS/)
      const [shellDenied] = await rt.executeToolCalls([use('bash', { command: 'echo changed > vendor/lib.txt' })])
      expect((shellDenied as { content: string }).content).toMatch(/vendor\/lib.txt: Read-only file system/)
      expect((await rt.callTool('bash', { command: 'touch vendor/y' })).denied).toBe(true)
      expect(fs.readFileSync(path.join(ws, 'vendor', 'lib.txt'), 'utf8')).toBe('pinned\n')
    } finally {
      await rt.close()
      await oai.close()
    }
    expect(await ownContainers()).toEqual([])
  }, 120_000)
})
