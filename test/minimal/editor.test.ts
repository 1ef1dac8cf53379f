/**
 * Anthropic's str_replace_based_edit_tool in Minimal mode, as tool_use blocks: view with line numbers,
 * ranges and folders; create; str_replace refusing zero or several matches with the count; insert; and
 * the workspace policy (read-only → EROFS, outside → EACCES) as denials.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { freshRoot, minimalRuntime } from './support.js'

const edit = (rt: Awaited<ReturnType<typeof minimalRuntime>>['rt'], input: Record<string, unknown>) =>
  rt.callTool('str_replace_based_edit_tool', input)

describe('Minimal mode: the editor', () => {
  it('views files with line numbers and ranges, and folders two levels deep without hidden entries', async () => {
    const { rt, root } = await minimalRuntime()
    writeFileSync(`${root}/a.py`, 'one\ntwo\nthree\n')
    mkdirSync(`${root}/pkg/sub/deep`, { recursive: true })
    writeFileSync(`${root}/pkg/sub/deep/x`, '')
    mkdirSync(`${root}/.git`)
    expect((await edit(rt, { command: 'view', path: `${root}/a.py` })).content).toBe(
      `Here's the result of running \`cat -n\` on ${root}/a.py:\n     1\tone\n     2\ttwo\n     3\tthree\n`,
    )
    expect((await edit(rt, { command: 'view', path: 'a.py', view_range: [2, -1] })).content).toBe(
      "Here's the result of running `cat -n` on a.py:\n     2\ttwo\n     3\tthree\n",
    )
    const bad = await edit(rt, { command: 'view', path: 'a.py', view_range: [4, 5] })
    expect(bad.content).toBe(
      'Error (EINVAL): Invalid `view_range`: [4, 5]. Its first element `4` should be within the range of lines of the file: [1, 3]',
    )
    expect((await edit(rt, { command: 'view', path: root })).content).toBe(
      `Here's the files and directories up to 2 levels deep in ${root}, excluding hidden items:\n${root}\n${root}/a.py\n${root}/pkg\n${root}/pkg/sub\n`,
    )
    expect((await edit(rt, { command: 'view', path: 'nope.txt' })).content).toBe(
      'Error (ENOENT): The path nope.txt does not exist. Please provide a valid path.',
    )
  })

  it('creates, replaces exactly one match, refuses zero or several with the count, inserts', async () => {
    const { rt, root } = await minimalRuntime()
    expect((await edit(rt, { command: 'create', path: 'm.txt', file_text: 'x = 1\ny = 1\nz = 2\n' })).content).toBe(
      'File created successfully at: m.txt',
    )
    expect((await edit(rt, { command: 'create', path: 'm.txt', file_text: '' })).content).toMatch(
      /^Error \(EEXIST\): File already exists at: m.txt/,
    )
    const none = await edit(rt, { command: 'str_replace', path: 'm.txt', old_str: 'w = 9', new_str: '' })
    expect(none.content).toBe('Error (EINVAL): No replacement was performed, old_str `w = 9` did not appear verbatim in m.txt (0 matches).')
    const many = await edit(rt, { command: 'str_replace', path: 'm.txt', old_str: '= 1', new_str: '= 3' })
    expect(many.content).toBe(
      'Error (EINVAL): No replacement was performed. Multiple occurrences of old_str `= 1` in lines [1,2] (2 matches). Please ensure it is unique',
    )
    expect(readFileSync(`${root}/m.txt`, 'utf8')).toBe('x = 1\ny = 1\nz = 2\n')
    const one = await edit(rt, { command: 'str_replace', path: 'm.txt', old_str: 'y = 1', new_str: 'y = 5' })
    expect(one.ok).toBe(true)
    expect(one.content).toMatch(
      /^The file m.txt has been edited. Here's the result of running `cat -n` on a snippet of m.txt:\n {5}1\tx = 1\n {5}2\ty = 5\n/,
    )
    const ins = await edit(rt, { command: 'insert', path: 'm.txt', insert_line: 0, insert_text: '# head' })
    expect(ins.ok).toBe(true)
    expect(readFileSync(`${root}/m.txt`, 'utf8')).toBe('# head\nx = 1\ny = 5\nz = 2\n')
    const far = await edit(rt, { command: 'insert', path: 'm.txt', insert_line: 9, insert_text: 'x' })
    expect(far.content).toBe(
      'Error (EINVAL): Invalid `insert_line` parameter: 9. It should be within the range of lines of the file: [0, 4]',
    )
    const unknown = await edit(rt, { command: 'undo_edit', path: 'm.txt' })
    expect(unknown.content).toMatch(/EINVAL/)
  })

  it('refuses read-only paths (EROFS) and paths outside (EACCES) as denials, writing nothing', async () => {
    const root = freshRoot()
    mkdirSync(`${root}/vendor`)
    writeFileSync(`${root}/vendor/lib.js`, 'keep\n')
    const { rt } = await minimalRuntime({ workspace: { root, readOnly: ['vendor'] } }, root)
    for (const input of [
      { command: 'str_replace', path: 'vendor/lib.js', old_str: 'keep', new_str: 'gone' },
      { command: 'insert', path: 'vendor/lib.js', insert_line: 0, insert_text: 'x' },
      { command: 'create', path: 'vendor/new.js', file_text: 'x' },
    ]) {
      const r = await edit(rt, input)
      expect(r.ok).toBe(false)
      expect(r.denied).toBe(true)
      expect(r.content).toMatch(/^Error \(EROFS\)/)
    }
    expect((await edit(rt, { command: 'view', path: 'vendor/lib.js' })).ok).toBe(true)
    const out = await edit(rt, { command: 'view', path: '/etc/passwd' })
    expect(out.denied).toBe(true)
    expect(out.content).toMatch(/^Error \(EACCES\)/)
    const climb = await edit(rt, { command: 'create', path: '../escape.txt', file_text: 'x' })
    expect(climb.content).toMatch(/^Error \(EACCES\)/)
    expect(readFileSync(`${root}/vendor/lib.js`, 'utf8')).toBe('keep\n')
  })
})
