/**
 * The policy hook's answer handed to the tool that runs with the very arguments it judged (guardArgs): a
 * racer that swaps a folder of the path between the two, or a hook that changes the arguments, must not
 * turn that answer into a way out. Real folders, the real policy and tools, no mocks.
 */
import { mkdirSync, readFileSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import type { JsonValue, ToolContext, ToolResult } from '../../vocabulary/types.js'
import { treeHash } from '../support/tree-hash.js'
import { codeOf, harness, type Harness } from './helpers.js'

let h: Harness
afterEach(() => h.cleanup())

const ctx: ToolContext = {
  callId: 'c',
  parentId: undefined,
  origin: 'code',
  signal: new AbortController().signal,
  concludeTurn: () => undefined,
  reportDenial: () => undefined,
  services: {},
}

/** The policy judges `args`, `between` runs (the race, a later hook), then the tool runs with `runArgs`. */
async function judgedThenRun(
  name: string,
  args: { [k: string]: JsonValue },
  between: () => void,
  runArgs: { [k: string]: JsonValue } = args,
): Promise<ToolResult> {
  const decision = await h.ws.policy({ id: 'c', name, args, origin: 'code' })
  if (decision && 'deny' in decision) return { ok: false, error: decision.deny }
  between()
  const tool = h.ws.tools.find((t) => t.name === name)!
  try {
    return { ok: true, value: (await tool.execute(runArgs, ctx)) as JsonValue }
  } catch (e) {
    return { ok: false, error: { code: String((e as { code?: unknown }).code), message: String(e) } }
  }
}

function setup(root: string, outside: string): void {
  mkdirSync(join(root, 'sub'))
  writeFileSync(join(root, 'sub/f.txt'), 'inside')
  writeFileSync(join(outside, 'f.txt'), 'outside secret')
}

/** `sub` renamed away and a symlink to the outside folder put in its place. */
function swapSubForLinkOut(): void {
  renameSync(join(h.root, 'sub'), join(h.root, 'sub.real'))
  symlinkSync(h.outside, join(h.root, 'sub'))
}

test('a folder swapped for a symlink out after the policy judged the call: write, read, edit, mkdir refused, outside untouched', async () => {
  h = harness({}, setup)
  const before = treeHash(h.outside)
  const cases: [string, { [k: string]: JsonValue }][] = [
    ['write_file', { path: 'sub/f.txt', content: 'pwned' }],
    ['read_file', { path: 'sub/f.txt' }],
    ['edit_file', { path: 'sub/f.txt', old_string: 'outside', new_string: 'pwned' }],
    ['mkdir', { path: 'sub/made' }],
    ['stat', { path: 'sub/f.txt' }],
    ['list_dir', { path: 'sub' }],
  ]
  for (const [name, args] of cases) {
    const r = await judgedThenRun(name, args, swapSubForLinkOut)
    expect(codeOf(r), `${name} after the swap`).toBe('EACCES')
    if (!r.ok) expect(r.error.message).not.toContain('secret')
    // Put the real folder back for the next case.
    renameSync(join(h.root, 'sub'), join(h.root, `link-${name}`))
    renameSync(join(h.root, 'sub.real'), join(h.root, 'sub'))
  }
  expect(treeHash(h.outside)).toBe(before)
})

test('a folder swapped for a symlink to a read-only part after the policy judged a write: refused, the read-only part unchanged', async () => {
  h = harness({ readOnly: ['ro'] }, (root, outside) => {
    setup(root, outside)
    mkdirSync(join(root, 'ro'))
    writeFileSync(join(root, 'ro/f.txt'), 'read-only')
  })
  const r = await judgedThenRun('write_file', { path: 'sub/f.txt', content: 'pwned' }, () => {
    renameSync(join(h.root, 'sub'), join(h.root, 'sub.real'))
    symlinkSync(join(h.root, 'ro'), join(h.root, 'sub'))
  })
  expect(['EACCES', 'EROFS']).toContain(codeOf(r))
  expect(readFileSync(join(h.root, 'ro/f.txt'), 'utf8')).toBe('read-only')
})

test('arguments edited in place after the policy judged them are judged again', async () => {
  h = harness({}, setup)
  const args: { [k: string]: JsonValue } = { path: 'sub/f.txt', content: 'pwned' }
  const r = await judgedThenRun('write_file', args, () => void (args.path = join(h.outside, 'f.txt')))
  expect(codeOf(r)).toBe('EACCES')
  expect(readFileSync(join(h.outside, 'f.txt'), 'utf8')).toBe('outside secret')
})

test('arguments a later hook replaced are judged again, not given the first answer', async () => {
  h = harness({}, setup)
  const judged = { path: 'sub/f.txt', content: 'pwned' }
  const replaced = { path: '../outside/f.txt', content: 'pwned' }
  const r = await judgedThenRun('write_file', judged, () => undefined, replaced)
  expect(codeOf(r)).toBe('EACCES')
  expect(readFileSync(join(h.outside, 'f.txt'), 'utf8')).toBe('outside secret')
})

test('a read judged by the policy does not vouch for a write of the same arguments', async () => {
  h = harness({ readOnly: ['sub'] }, setup)
  const args = { path: 'sub/f.txt', content: 'pwned' }
  // The policy judged it as a read (read_file): the write tool must judge it as a write itself.
  const decision = await h.ws.policy({ id: 'c', name: 'read_file', args, origin: 'code' })
  expect(decision).toBeUndefined()
  const write = h.ws.tools.find((t) => t.name === 'write_file')!
  await expect(Promise.resolve().then(() => write.execute(args, ctx))).rejects.toMatchObject({ code: 'EROFS' })
  expect(readFileSync(join(h.root, 'sub/f.txt'), 'utf8')).toBe('inside')
})

test('the judged answer is used once: the same arguments run again follow the symlink where it points now', async () => {
  h = harness({}, (root) => {
    mkdirSync(join(root, 'a'))
    mkdirSync(join(root, 'b'))
    symlinkSync('a', join(root, 'link'))
  })
  const args = { path: 'link/f.txt', content: 'once' }
  expect(codeOf(await judgedThenRun('write_file', args, () => undefined))).toBe('ok')
  expect(readFileSync(join(h.root, 'a/f.txt'), 'utf8')).toBe('once')
  writeFileSync(join(h.root, 'a/f.txt'), 'before')
  unlinkSync(join(h.root, 'link'))
  symlinkSync('b', join(h.root, 'link'))
  const write = h.ws.tools.find((t) => t.name === 'write_file')!
  await write.execute({ ...args, content: 'again' }, ctx)
  await write.execute(args, ctx)
  expect(readFileSync(join(h.root, 'b/f.txt'), 'utf8')).toBe('once')
  expect(readFileSync(join(h.root, 'a/f.txt'), 'utf8')).toBe('before')
})
