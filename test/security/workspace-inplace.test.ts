/**
 * write_file and edit_file write an existing file in place (beneath-write.ts). By attack: while they run,
 * another process swaps the file itself — its last component — for a symlink to an outside file, or for a
 * hard link to one, and back, in a tight loop. Whatever the interleaving, no outside file is ever written
 * (the outside tree's digest never changes) and the tools keep answering (ok, or a clean EACCES/ENOENT).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import type { JsonValue, ToolResult } from '../../vocabulary/types.js'
import { harness, type Harness } from '../workspace/helpers.js'
import { treeHash } from '../support/tree-hash.js'

const SECRET = 'outside secret, and long enough to be cut short by a write'
const ROUNDS = 800
let h: Harness
let swapper: ChildProcess | undefined

afterEach(async () => {
  const child = swapper
  swapper = undefined
  if (child && child.exitCode === null) {
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve())
      child.kill('SIGKILL')
    })
  }
  h.cleanup()
})

/** Swaps `f.txt` between a file of its own and a `kind` link to the outside file, each an atomic rename. */
function startSwapper(kind: 'symlink' | 'hardlink'): Promise<void> {
  const code = `
    const fs = require('fs'); const [f, out, kind] = process.argv.slice(1)
    process.stdout.write('go')
    const dwell = new Int32Array(new SharedArrayBuffer(4)); let n = 0
    for (;;) {
      const t = f + '.swap-' + n++
      try { kind === 'symlink' ? fs.symlinkSync(out, t) : fs.linkSync(out, t); fs.renameSync(t, f) } catch {}
      Atomics.wait(dwell, 0, 0, 0.05)
      try { fs.writeFileSync(t, 'inside'); fs.renameSync(t, f) } catch {}
      Atomics.wait(dwell, 0, 0, 0.05)
    }`
  swapper = spawn(process.execPath, ['-e', code, join(h.root, 'f.txt'), join(h.outside, 'secret.txt'), kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve) => swapper?.stdout?.once('data', () => resolve()))
}

async function race(kind: 'symlink' | 'hardlink', name: string, args: (i: number) => Record<string, JsonValue>): Promise<ToolResult[]> {
  h = harness({}, (root, outside) => {
    writeFileSync(join(outside, 'secret.txt'), SECRET)
    writeFileSync(join(root, 'f.txt'), 'inside')
  })
  const before = treeHash(h.outside)
  await startSwapper(kind)
  const results: ToolResult[] = []
  // Under load the swapper can win every round of a batch; go on (at most 5× ROUNDS) until a call has got
  // through, so "never succeeded" below means the tool is broken, not that this machine was busy.
  for (let i = 0; i < ROUNDS || (!results.some((r) => r.ok) && i < 5 * ROUNDS); i += 8)
    results.push(...(await Promise.all(Array.from({ length: 8 }, (_, k) => h.call(name, args(i + k))))))
  expect(treeHash(h.outside), `${name} wrote through a ${kind} to the outside`).toBe(before)
  for (const r of results) expect(['ok', 'EACCES', 'ENOENT', 'EINVAL'], JSON.stringify(r)).toContain(r.ok ? 'ok' : r.error.code)
  expect(
    results.some((r) => r.ok),
    `${name} never succeeded`,
  ).toBe(true)
  for (const r of results) expect(JSON.stringify(r)).not.toContain('outside secret')
  return results
}

describe('the file itself swapped for a link to the outside, racing the in-place write', () => {
  test('write_file never writes through a symlink swapped in', async () => {
    await race('symlink', 'write_file', (i) => ({ path: 'f.txt', content: `w${i}` }))
  })

  test('write_file never writes through a hard link swapped in (nor cuts the outside file short)', async () => {
    await race('hardlink', 'write_file', (i) => ({ path: 'f.txt', content: `w${i}` }))
  })

  test('edit_file never edits the outside file through a hard link swapped in', async () => {
    // The content it reads may be the outside file's (a hard link is the same file): it must not be written.
    await race('hardlink', 'edit_file', () => ({ path: 'f.txt', old_string: 'e', new_string: 'E', replace_all: true }))
  })
})
