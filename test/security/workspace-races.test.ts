/**
 * 12.3 by attack: while each workspace tool runs, another process swaps a folder of its path for a symlink
 * to an outside folder holding the same names, in a tight loop. Whatever the interleaving, nothing outside
 * is ever read, listed, stat'ed, written, created or removed (the outside tree's digest never changes), and
 * the tools keep answering (ok, or a clean EACCES/ENOENT).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, lstatSync, mkdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import type { JsonValue, ToolResult } from '../../vocabulary/types.js'
import { harness, type Harness } from '../workspace/helpers.js'
import { treeHash } from '../support/tree-hash.js'

const SECRET = 'outside secret, inside words, and it is long enough to tell apart by size'
const ROUNDS = 160
/** Rounds go on past ROUNDS (up to this many, or 30 s) until the race met both states. */
const MAX_ROUNDS = 2000
/** Victims to remove; rounds past these find theirs gone (ENOENT). */
const VICTIMS = ROUNDS

let h: Harness
let swapper: ChildProcess | undefined

afterEach(async () => {
  await stopSwapper()
  h.cleanup()
})

/** The same names on both sides: a tool that followed the swapped link would act on the outside copy. */
function mirror(root: string, outside: string): void {
  for (const [base, text] of [
    [join(root, 'sub'), 'inside'],
    [outside, SECRET],
  ] as const) {
    mkdirSync(join(base, 'deeper'), { recursive: true })
    writeFileSync(join(base, 'deeper/f.txt'), text)
    // Enough victims for every round, in a folder of their own so listings stay small.
    for (let i = 0; i < VICTIMS; i++) {
      mkdirSync(join(base, `v/tree-${i}/inner`), { recursive: true })
      writeFileSync(join(base, `v/victim-${i}.txt`), text)
      writeFileSync(join(base, `v/tree-${i}/inner/leaf.txt`), text)
    }
  }
  writeFileSync(join(outside, 'deeper/only-outside.txt'), SECRET)
}

/** A separate process renaming `sub` away, putting a symlink to the outside in its place, and back, forever. */
function startSwapper(root: string, outside: string): Promise<void> {
  const code = `
    const fs = require('fs'); const [sub, real, out] = process.argv.slice(1)
    process.stdout.write('go')
    const dwell = new Int32Array(new SharedArrayBuffer(4)); let n = 0
    for (;;) {
      try { fs.renameSync(sub, real) } catch {
        // The last restore failed (a new folder took the name): move that aside, put the real one back.
        try { fs.renameSync(sub, sub + '.made-' + n++) } catch {}
        try { fs.renameSync(real, sub) } catch {}
        continue
      }
      // A moment in the swapped state too: a call that is fast (a stat) must meet it now and then, or the
      // race proves nothing about it (under load the link once lived too briefly for 2,000 rounds to meet).
      try { fs.symlinkSync(out, sub); Atomics.wait(dwell, 0, 0, 0.05) } catch {}
      // A tool may have made a new folder in the gap (write_file's parents): move it aside, so the swap goes on.
      try { fs.unlinkSync(sub) } catch { try { fs.renameSync(sub, sub + '.made-' + n++) } catch {} }
      try { fs.renameSync(real, sub) } catch {}
      Atomics.wait(dwell, 0, 0, 0.05) // a moment in the real state, so some calls get through the policy
    }`
  swapper = spawn(process.execPath, ['-e', code, join(root, 'sub'), join(root, 'sub.real'), outside], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve) => swapper?.stdout?.once('data', () => resolve()))
}

async function stopSwapper(): Promise<void> {
  const child = swapper
  swapper = undefined
  if (!child || child.exitCode !== null) return
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })
  // Put the real folder back if the kill landed mid-swap.
  const sub = join(h.root, 'sub')
  if (existsSync(sub) && lstatSync(sub).isSymbolicLink()) unlinkSync(sub)
  if (existsSync(join(h.root, 'sub.real')) && !existsSync(sub)) renameSync(join(h.root, 'sub.real'), sub)
}

/** Runs `args(i)` ROUNDS times, eight calls at a time, under the swapper; returns every result. */
async function race(name: string, args: (i: number) => Record<string, JsonValue>): Promise<ToolResult[]> {
  h = h ?? harness()
  const before = treeHash(h.outside)
  await startSwapper(h.root, h.outside)
  const results: ToolResult[] = []
  const started = Date.now()
  // A loaded machine can starve the swapper for a while: go on until both states were met.
  const metBoth = (): boolean => results.some((r) => r.ok) && results.some((r) => !r.ok)
  for (let i = 0; i < ROUNDS || (!metBoth() && i < MAX_ROUNDS && Date.now() - started < 30_000); i += 8) {
    const batch = Array.from({ length: 8 }, (_, k) => h.call(name, args(i + k)))
    results.push(...(await Promise.all(batch)))
  }
  await stopSwapper()
  expect(treeHash(h.outside), `${name} changed something outside the workspace`).toBe(before)
  const codes = new Set(results.map((r) => (r.ok ? 'ok' : r.error.code)))
  // Only clean answers: success, or refused/missing because the folder was mid-swap.
  for (const c of codes) expect(['ok', 'EACCES', 'ENOENT', 'ENOTDIR'], `${name} answered ${c}`).toContain(c)
  // The race really ran: some calls met the swapped state, some the real folder.
  expect(codes.has('ok'), `${name} never succeeded`).toBe(true)
  expect(codes.size, `${name} never met the swap`).toBeGreaterThan(1)
  for (const r of results) expect(JSON.stringify(r)).not.toContain('outside secret')
  for (const r of results) expect(JSON.stringify(r)).not.toContain(h.outside)
  return results
}

function setup(): void {
  h = harness({}, mirror)
}

describe('a folder of the path swapped for a symlink to the outside, racing each tool', () => {
  test('read_file never reads the outside file', async () => {
    setup()
    await race('read_file', () => ({ path: 'sub/deeper/f.txt' }))
  })

  test('list_dir never lists the outside folder', async () => {
    setup()
    const results = await race('list_dir', () => ({ path: 'sub/deeper' }))
    for (const r of results) expect(JSON.stringify(r)).not.toContain('only-outside')
  })

  test('stat never describes the outside file', async () => {
    setup()
    const results = await race('stat', () => ({ path: 'sub/deeper/f.txt' }))
    for (const r of results) if (r.ok) expect((r.value as { size: number }).size).toBe('inside'.length)
  })

  test("glob's walk never enters the outside folder", async () => {
    setup()
    const results = await race('glob', () => ({ pattern: 'sub/deeper/*.txt' }))
    for (const r of results) expect(JSON.stringify(r)).not.toContain('only-outside')
  })

  test('write_file never writes outside (replacing a file, or creating one)', async () => {
    setup()
    await race('write_file', (i) => ({ path: i % 2 === 0 ? 'sub/deeper/f.txt' : `sub/deeper/new-${i}/n.txt`, content: `w${i}` }))
  })

  test('edit_file never edits the outside file', async () => {
    setup()
    await race('edit_file', () => ({ path: 'sub/deeper/f.txt', old_string: 'inside', new_string: 'inside!' }))
  })

  test('mkdir never creates a folder outside', async () => {
    setup()
    await race('mkdir', (i) => ({ path: `sub/deeper/made-${i}/a/b` }))
  })

  test('remove never removes an outside file', async () => {
    setup()
    await race('remove', (i) => ({ path: `sub/v/victim-${i % VICTIMS}.txt` }))
  })

  test('a recursive remove never removes an outside tree', async () => {
    setup()
    await race('remove', (i) => ({ path: `sub/v/tree-${i % VICTIMS}`, recursive: true }))
  })
})
