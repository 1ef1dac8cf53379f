/** The job CodeAct is for: a 1,000-file batch transform through the tools, checked file by file. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { harness, type Harness } from './helpers.js'

let h: Harness
afterEach(() => h.cleanup())

const N = 1_000

test('1,000 files: glob, read, rewrite, write; every file checked', async () => {
  h = harness({ readOnly: ['data/frozen'] }, (root) => {
    for (let i = 0; i < N; i++) {
      const dir = join(root, 'data', `d${i % 10}`)
      mkdirSync(dir, { recursive: true })
      writeFileSync(join(dir, `f${i}.txt`), `id=${i}\nstatus=draft\n`)
    }
    mkdirSync(join(root, 'data/frozen'))
    writeFileSync(join(root, 'data/frozen/keep.txt'), 'status=draft\n')
  })
  const files = await h.ok<string[]>('glob', { pattern: 'data/d*/*.txt' })
  expect(files).toHaveLength(N)
  // Ten at a time, as a program would with Promise.all over chunks.
  for (let i = 0; i < files.length; i += 10) {
    await Promise.all(
      files.slice(i, i + 10).map(async (path) => {
        const text = await h.ok<string>('read_file', { path })
        await h.ok('write_file', { path, content: text.replace('status=draft', 'status=final').toUpperCase() })
      }),
    )
  }
  for (let i = 0; i < N; i++) {
    expect(readFileSync(join(h.root, 'data', `d${i % 10}`, `f${i}.txt`), 'utf8')).toBe(`ID=${i}\nSTATUS=FINAL\n`)
  }
  // The read-only file was never in the batch and a write to it is refused.
  const r = await h.call('edit_file', { path: 'data/frozen/keep.txt', old_string: 'draft', new_string: 'final' })
  expect(r.ok ? 'ok' : r.error.code).toBe('EROFS')
  expect(readFileSync(join(h.root, 'data/frozen/keep.txt'), 'utf8')).toBe('status=draft\n')
})
