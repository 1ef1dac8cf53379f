/**
 * 12.4: one table of ways to change a read-only path, run against the file tools and against `bash`
 * (real bubblewrap). For every row both sides are refused as EROFS — bash's refusal reported as a denial —
 * and the tree on disk is exactly as before (every name, mode, symlink target and a digest of every file's bytes; `.git` aside, which git
 * itself may touch). Read-only here: a folder (`pkg/vendor`), a file (`pkg/LICENSE`), a folder that does
 * not exist yet (`gen`) and one whose parent does not exist either (`build/out`).
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import type { JsonValue } from '../../vocabulary/types.js'
import { codeOf, harness, type Harness } from '../workspace/helpers.js'
import { bwrap } from '../support/bwrap.js'
import { treeListing } from '../support/tree-hash.js'

const READ_ONLY = ['pkg/vendor', 'pkg/LICENSE', 'gen', 'build/out']
const SKIP = ['.git']

function git(root: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args], { cwd: root, stdio: 'ignore' })
}

function fixture(root: string): void {
  mkdirSync(join(root, 'pkg/vendor/sub'), { recursive: true })
  mkdirSync(join(root, 'src'))
  writeFileSync(join(root, 'pkg/vendor/lib.js'), 'vendor v1\n')
  writeFileSync(join(root, 'pkg/vendor/sub/deep.js'), 'deep\n')
  writeFileSync(join(root, 'pkg/LICENSE'), 'MIT\n')
  writeFileSync(join(root, 'pkg/index.js'), 'index\n')
  writeFileSync(join(root, 'src/app.js'), 'app\n')
  symlinkSync('pkg/vendor', join(root, 'shortcut'))
  // An archive that would overwrite the read-only file, made outside the workspace.
  const staging = mkdtempSync(join(tmpdir(), 'codeact-tar-'))
  mkdirSync(join(staging, 'pkg/vendor'), { recursive: true })
  writeFileSync(join(staging, 'pkg/vendor/lib.js'), 'PWNED\n')
  execFileSync('tar', ['-cf', join(root, 'evil.tar'), '-C', staging, 'pkg'])
  rmSync(staging, { recursive: true })
  // Two commits, so `git checkout HEAD~1 -- <read-only file>` has something to write.
  git(root, 'init', '-q')
  git(root, 'add', '-A')
  git(root, 'commit', '-qm', 'one')
  writeFileSync(join(root, 'pkg/vendor/lib.js'), 'vendor v2\n')
  git(root, 'commit', '-qam', 'two')
}

type Step = readonly [string, Record<string, JsonValue>]

interface Case {
  what: string
  /** The same intent through the file tools (each step must be EROFS). */
  tools: Step[]
  /** …and through bash. */
  bash: string
  /** Writable entries the bash side may legitimately change on its way (rm -rf of a parent removes its writable files). */
  writable?: string[]
}

const CASES: Case[] = [
  { what: 'write', tools: [['write_file', { path: 'pkg/vendor/lib.js', content: 'PWNED' }]], bash: 'echo PWNED > pkg/vendor/lib.js' },
  {
    what: 'append',
    tools: [['edit_file', { path: 'pkg/vendor/lib.js', old_string: 'v2', new_string: 'v2 PWNED' }]],
    bash: 'echo PWNED >> pkg/vendor/lib.js',
  },
  {
    what: 'edit in place',
    tools: [['edit_file', { path: 'pkg/vendor/lib.js', old_string: 'v2', new_string: 'PWNED' }]],
    bash: 'sed -i s/v2/PWNED/ pkg/vendor/lib.js',
  },
  { what: 'mkdir inside', tools: [['mkdir', { path: 'pkg/vendor/made' }]], bash: 'mkdir pkg/vendor/made' },
  {
    what: 'remove',
    tools: [
      ['remove', { path: 'pkg/vendor/lib.js' }],
      ['remove', { path: 'pkg/vendor', recursive: true }],
    ],
    bash: 'rm -rf pkg/vendor',
  },
  { what: 'rename of the path', tools: [['remove', { path: 'pkg/vendor', recursive: true }]], bash: 'mv pkg/vendor pkg/vendor_moved' },
  {
    what: 'rename of an ancestor, then recreate it writable (the reported attack)',
    tools: [['remove', { path: 'pkg', recursive: true }]],
    bash: 'mv pkg pkg_moved && mkdir -p pkg/vendor && echo X > pkg/vendor/lib.js',
  },
  {
    what: 'rename of an ancestor, carrying on regardless',
    tools: [['remove', { path: 'pkg', recursive: true }]],
    bash: 'mv pkg pkg_moved; mkdir -p pkg/vendor; echo X > pkg/vendor/lib.js',
  },
  { what: 'remove an ancestor', tools: [['remove', { path: 'pkg', recursive: true }]], bash: 'rm -rf pkg', writable: ['pkg/index.js'] },
  {
    what: 'create when missing',
    tools: [
      ['write_file', { path: 'gen/a.js', content: 'X' }],
      ['mkdir', { path: 'gen' }],
    ],
    bash: 'mkdir gen && echo X > gen/a.js',
  },
  { what: 'create a missing path as a file', tools: [['write_file', { path: 'gen', content: 'X' }]], bash: 'echo X > gen' },
  {
    what: 'create when missing, parents too',
    tools: [
      ['write_file', { path: 'build/out/a.js', content: 'X' }],
      ['mkdir', { path: 'build/out/deeper' }],
    ],
    bash: 'mkdir -p build/out && echo X > build/out/a.js',
  },
  {
    what: 'through a symlink in the workspace',
    tools: [['write_file', { path: 'shortcut/lib.js', content: 'PWNED' }]],
    bash: 'echo PWNED > shortcut/lib.js',
  },
  {
    what: 'through a symlink made in /tmp',
    tools: [['write_file', { path: 'shortcut/new.js', content: 'PWNED' }]],
    bash: 'ln -s "$PWD/pkg/vendor" /tmp/v && echo PWNED > /tmp/v/lib.js',
  },
  {
    what: 'swap an ancestor for a symlink to a writable copy',
    tools: [['remove', { path: 'pkg', recursive: true }]],
    bash: 'cp -r pkg pkg_copy && rm -rf pkg_copy/vendor/* && mv pkg pkg_old && ln -s pkg_copy pkg; rm -rf pkg_copy',
  },
  {
    what: 'hard link, then write the link',
    tools: [['write_file', { path: 'pkg/vendor/lib.js', content: 'PWNED' }]],
    bash: 'ln pkg/vendor/lib.js h.js && echo PWNED > h.js',
  },
  {
    what: 'cp -r over it',
    tools: [['write_file', { path: 'pkg/vendor/sub/app.js', content: 'app' }]],
    bash: 'cp -r src/. pkg/vendor/sub/',
  },
  { what: 'tar -x over it', tools: [['write_file', { path: 'pkg/vendor/lib.js', content: 'PWNED' }]], bash: 'tar -xf evil.tar' },
  {
    what: 'git checkout of an old version',
    tools: [['write_file', { path: 'pkg/vendor/lib.js', content: 'vendor v1\n' }]],
    bash: 'git checkout -q HEAD~1 -- pkg/vendor/lib.js',
  },
  { what: 'truncation with >', tools: [['write_file', { path: 'pkg/vendor/lib.js', content: '' }]], bash: ': > pkg/vendor/lib.js' },
  { what: 'truncate(1)', tools: [['write_file', { path: 'pkg/LICENSE', content: '' }]], bash: 'truncate -s 0 pkg/LICENSE' },
  {
    what: 'a read-only file: edit, replace and remove',
    tools: [
      ['edit_file', { path: 'pkg/LICENSE', old_string: 'MIT', new_string: 'GPL' }],
      ['remove', { path: 'pkg/LICENSE' }],
    ],
    bash: 'sed -i s/MIT/GPL/ pkg/LICENSE',
  },
  {
    what: 'a read-only file renamed over',
    tools: [['write_file', { path: 'pkg/LICENSE', content: 'app' }]],
    bash: 'cp src/app.js /tmp/x && mv /tmp/x pkg/LICENSE',
  },
  { what: 'a read-only file moved away', tools: [['remove', { path: 'pkg/LICENSE' }]], bash: 'mv pkg/LICENSE pkg/LICENSE.old' },
  {
    what: 'a read-only file moved to another folder (mv copies across the mount, then cannot remove it)',
    tools: [['remove', { path: 'pkg/LICENSE' }]],
    bash: 'mv pkg/LICENSE LICENSE.old',
    writable: ['LICENSE.old'],
  },
  { what: 'chmod', tools: [['write_file', { path: 'pkg/vendor/lib.js', content: 'vendor v2\n' }]], bash: 'chmod 777 pkg/vendor/lib.js' },
]

let h: Harness
afterEach(() => h.cleanup())

describe.skipIf(!bwrap.available)('the file tools and bash agree on every read-only case', () => {
  for (const c of CASES) {
    test(c.what, async () => {
      h = harness({ readOnly: READ_ONLY }, fixture)
      const unchanged = (): string[] => treeListing(h.root, SKIP).filter((e) => !(c.writable ?? []).some((w) => e.startsWith(`${w} `)))
      const before = unchanged()
      for (const [tool, args] of c.tools) {
        expect(codeOf(await h.call(tool, args)), `${tool} ${JSON.stringify(args)}`).toBe('EROFS')
      }
      expect(unchanged(), 'the file tools changed the tree').toEqual(before)
      const r = await h.call('bash', { command: c.bash })
      if (!r.ok) throw new Error(`bash failed: ${r.error.code} ${r.error.message}`)
      const v = r.value as { stderr: string; denied?: string }
      expect(v.denied, `bash was not denied; stderr: ${v.stderr}`).toBe('EROFS')
      expect(h.denials.map((d) => d.code)).toEqual(['EROFS'])
      expect(unchanged(), `bash changed the tree; stderr: ${v.stderr}`).toEqual(before)
    })
  }

  test('the placeholders of missing read-only paths are gone after the command, and writes beside them still work', async () => {
    h = harness({ readOnly: READ_ONLY }, fixture)
    const r = await h.call('bash', {
      command: 'ls -d build/out gen && echo ok > build-log.txt && mkdir -p src/new && echo y > src/new/f.js',
    })
    expect(r.ok && (r.value as { stdout: string }).stdout).toBe('build/out\ngen\n')
    const names = treeListing(h.root, SKIP)
    expect(names.some((n) => n.startsWith('gen') || n.startsWith('build/'))).toBe(false)
    expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/^build-log\.txt /), expect.stringMatching(/^src\/new\/f\.js /)]))
  })

  test('parallel commands share a placeholder: the first to end does not remove it from under the other', async () => {
    h = harness({ readOnly: READ_ONLY }, fixture)
    const first = h.call('bash', { command: 'sleep 1; ls -d gen' })
    await new Promise((r) => setTimeout(r, 300))
    // Started second, still running when the first ends and releases its placeholder.
    const second = h.call('bash', { command: 'sleep 2.5; mkdir -p gen/x; echo X > gen/a.js; ls gen' })
    const a = await first
    expect(a.ok && (a.value as { stdout: string }).stdout).toBe('gen\n')
    const b = await second
    if (!b.ok) throw new Error(b.error.message)
    expect(b.value).toMatchObject({ stdout: '', denied: 'EROFS' })
    expect(treeListing(h.root, SKIP).some((n) => n.startsWith('gen'))).toBe(false)
  })

  test('ordinary work next to read-only paths is not refused: edits, renames and removes in the writable part', async () => {
    h = harness({ readOnly: READ_ONLY }, fixture)
    const r = await h.call('bash', {
      command:
        'sed -i s/index/INDEX/ pkg/index.js && mv pkg/index.js pkg/main.js && mv src/app.js pkg/app.js && rm pkg/app.js && git status --short >/dev/null && echo done',
    })
    expect(r.ok && r.value).toMatchObject({ stdout: 'done\n', exit_code: 0 })
    expect(r.ok && (r.value as { denied?: string }).denied).toBeUndefined()
    expect(h.denials).toEqual([])
  })
})
