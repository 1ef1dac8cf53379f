/**
 * OpenAI's `shell` and `apply_patch` in Minimal mode (`minimal: 'openai'`): a V4A corpus — add, update
 * with context hunks and anchors, delete, move — where a hunk that does not apply names the file and the
 * context, and nothing of that patch is written (all or nothing across files).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { freshRoot, minimalRuntime } from './support.js'

const patch = (...body: string[]) => ['*** Begin Patch', ...body, '*** End Patch'].join('\n')

async function openaiRuntime(setup?: (root: string) => void, readOnly?: string[]) {
  const root = freshRoot()
  setup?.(root)
  return minimalRuntime({ minimal: 'openai', workspace: { root, ...(readOnly ? { readOnly } : {}) } }, root)
}

describe('Minimal mode (openai): apply_patch', () => {
  it('offers exactly shell and apply_patch', async () => {
    const { rt } = await openaiRuntime()
    expect(rt.tools.definitions().map((d) => d.name)).toEqual(['apply_patch', 'shell'])
  })

  it('adds, updates with context hunks and anchors, deletes and moves in one patch', async () => {
    const { rt, root } = await openaiRuntime((r) => {
      writeFileSync(`${r}/app.py`, 'import os\n\ndef main():\n    print("hi")\n    return 0\n\ndef other():\n    return 0\n')
      writeFileSync(`${r}/old.txt`, 'bye\n')
      writeFileSync(`${r}/move-me.txt`, 'a\nb\nc\n')
    })
    const mainHunk = ['@@ def main():', '     print("hi")', '-    return 0', '+    return 2']
    const otherHunk = ['@@ def other():', '-    return 0', '+    return 1']
    const whole = (hunks: string[]) =>
      patch(
        ...['*** Add File: docs/new.md', '+# New', '+text', '*** Update File: app.py', ...hunks, '*** Delete File: old.txt'],
        ...['*** Update File: move-me.txt', '*** Move to: moved/there.txt', '@@', ' a', '-b', '+B', ' c'],
      )
    // Hunks out of file order: the anchor of the second is behind the first.
    const r = await rt.callTool('apply_patch', { input: whole([...otherHunk, ...mainHunk]) })
    expect(r.content).toBe(
      'Error (EINVAL): app.py: hunk 2: the context line @@ def main(): was not found; nothing of this patch was written',
    )
    expect(existsSync(`${root}/docs/new.md`)).toBe(false)
    expect(readFileSync(`${root}/old.txt`, 'utf8')).toBe('bye\n')
    const ok = await rt.callTool('apply_patch', { input: whole([...mainHunk, ...otherHunk]) })
    expect(ok.content).toBe('Success. Updated the following files:\nA docs/new.md\nM app.py\nD old.txt\nD move-me.txt\nA moved/there.txt\n')
    expect(readFileSync(`${root}/docs/new.md`, 'utf8')).toBe('# New\ntext\n')
    expect(readFileSync(`${root}/app.py`, 'utf8')).toBe(
      'import os\n\ndef main():\n    print("hi")\n    return 2\n\ndef other():\n    return 1\n',
    )
    expect(existsSync(`${root}/old.txt`)).toBe(false)
    expect(existsSync(`${root}/move-me.txt`)).toBe(false)
    expect(readFileSync(`${root}/moved/there.txt`, 'utf8')).toBe('a\nB\nc\n')
  })

  it('a hunk that does not apply names the file and the missing context; the whole patch is not written', async () => {
    const { rt, root } = await openaiRuntime((r) => {
      writeFileSync(`${r}/a.txt`, 'alpha\nbeta\n')
      writeFileSync(`${r}/b.txt`, 'one\ntwo\nthree\n')
    })
    const r = await rt.callTool('apply_patch', {
      input: patch(
        '*** Update File: a.txt',
        '-alpha',
        '+ALPHA',
        ' beta',
        '*** Update File: b.txt',
        ' one',
        '-2',
        '+TWO',
        ' three',
        '*** Add File: c.txt',
        '+c',
      ),
    })
    expect(r.ok).toBe(false)
    expect(r.content).toBe(
      'Error (EINVAL): b.txt: hunk 1: these lines were not found:\n  one\n  2\n  three\nnothing of this patch was written; view the file and send the hunk again with its current text',
    )
    expect(readFileSync(`${root}/a.txt`, 'utf8')).toBe('alpha\nbeta\n')
    expect(existsSync(`${root}/c.txt`)).toBe(false)
  })

  it('tolerates trailing whitespace in context, honours End of File, and refuses malformed patches', async () => {
    const { rt, root } = await openaiRuntime((r) => writeFileSync(`${r}/w.txt`, 'x  \ny\nend\n'))
    const ok = await rt.callTool('apply_patch', {
      input: patch('*** Update File: w.txt', '@@', ' x', '-y', '+Y', '@@', '+tail', '*** End of File'),
    })
    expect(ok.ok).toBe(true)
    expect(readFileSync(`${root}/w.txt`, 'utf8')).toBe('x  \nY\nend\ntail\n')
    const cases: Array<[string, RegExp]> = [
      ['*** Update File: w.txt\n-x', /starts with "\*\*\* Begin Patch"/],
      [patch('*** Frobnicate File: w.txt'), /expected "\*\*\* Add File: "/],
      [patch('*** Add File: w.txt', '+dup'), /EEXIST.*w.txt: Add File, but the file exists/],
      [patch('*** Delete File: ghost.txt'), /ENOENT.*ghost.txt: Delete File, but there is no such file/],
      [patch('*** Add File: z.txt', 'no plus'), /every line of an added file starts with "\+"/],
    ]
    for (const [input, want] of cases) expect((await rt.callTool('apply_patch', { input })).content).toMatch(want)
  })

  it('refuses read-only and outside paths as denials before writing anything', async () => {
    const { rt, root } = await openaiRuntime(
      (r) => {
        mkdirSync(`${r}/locked`)
        writeFileSync(`${r}/locked/k.txt`, 'k\n')
      },
      ['locked'],
    )
    const ro = await rt.callTool('apply_patch', { input: patch('*** Add File: free.txt', '+f', '*** Delete File: locked/k.txt') })
    expect(ro.denied).toBe(true)
    expect(ro.content).toMatch(/^Error \(EROFS\)/)
    expect(existsSync(`${root}/free.txt`)).toBe(false)
    const out = await rt.callTool('apply_patch', { input: patch('*** Add File: ../../escape.txt', '+x') })
    expect(out.content).toMatch(/^Error \(EACCES\)/)
  })

  it("takes the Responses API's one-file operation too", async () => {
    const { rt, root } = await openaiRuntime()
    const r = await rt.callTool('apply_patch', { operation: { type: 'create_file', path: 'op.txt', diff: '+made\n' } })
    expect(r.ok).toBe(true)
    expect(readFileSync(`${root}/op.txt`, 'utf8')).toBe('made\n')
  })

  it('shell runs commands in order in the persistent session, with exit and timeout outcomes', async () => {
    const { rt, root } = await openaiRuntime()
    const r = await rt.callTool('shell', { commands: ['cd /tmp && X=1', 'echo "$X $PWD"; exit_not_a_cmd'] })
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.value).toEqual([
      { stdout: '', stderr: '', outcome: { type: 'exit', exit_code: 0 } },
      {
        stdout: '1 /tmp\n',
        stderr: expect.stringMatching(/exit_not_a_cmd: command not found\n$/),
        outcome: { type: 'exit', exit_code: 127 },
      },
    ])
    const t = await rt.callTool('shell', { commands: ['sleep 20', 'echo never'], timeout_ms: 500 })
    expect(t.ok && t.value).toEqual([{ stdout: '', stderr: expect.stringMatching(/timed out after 500 ms/), outcome: { type: 'timeout' } }])
    const capped = await rt.callTool('shell', { commands: ['printf "%0100d" 0; echo "$X"'], max_output_length: 10 })
    expect(capped.ok && capped.value).toEqual([
      { stdout: '0000000000', stderr: expect.stringMatching(/output truncated/), outcome: { type: 'exit', exit_code: 0 } },
    ])
    void root
  })
})
