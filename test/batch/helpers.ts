/** Real workspaces in temp folders, a hash of a whole tree, and the CLI as a user runs it. */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll } from 'vitest'

const made: string[] = []
afterAll(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** The stage folders of these tests stay out of the user's home. */
export const STATE_DIR = mkdtempSync(join(tmpdir(), 'codeact-state-'))
process.env.CODEACT_STATE_DIR = STATE_DIR
made.push(STATE_DIR)

/** A workspace folder holding `files` (path → content). */
export function workspace(files: Record<string, string> = {}): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'codeact-batch-')))
  made.push(root)
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true })
    writeFileSync(join(root, rel), content)
  }
  return root
}

/** Every entry's path, type, mode and bytes, hashed: equal hashes mean every byte is as it was. */
export function treeHash(root: string): string {
  const h = createHash('sha256')
  const visit = (dir: string, prefix: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const abs = join(dir, name)
      const rel = prefix ? `${prefix}/${name}` : name
      const st = lstatSync(abs)
      h.update(`${rel}\0${st.mode}\0`)
      if (st.isSymbolicLink()) h.update(readlinkSync(abs))
      else if (st.isDirectory()) visit(abs, rel)
      else h.update(readFileSync(abs))
      h.update('\0')
    }
  }
  visit(root, '')
  return h.digest('hex')
}

export function codeact(
  args: string[],
  input?: string,
  env: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['bin/codeact.mjs', ...args], {
    encoding: 'utf8',
    input,
    timeout: 120_000,
    maxBuffer: 512 * 1024 * 1024,
    env: { ...process.env, CODEACT_STATE_DIR: STATE_DIR, ...env },
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** Writes a program file and returns its path. */
export function program(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'codeact-prog-'))
  made.push(dir)
  const file = join(dir, 'job.ts')
  writeFileSync(file, text)
  return file
}

/** A workspace owned by nobody (65534) all the way down: the Docker container runs as the workspace's owner. */
export function ownedWorkspace(files: Record<string, string>): string {
  const root = workspace(files)
  const own = (rel: string): void => chownSync(join(root, rel), 65534, 65534)
  own('.')
  for (const rel of Object.keys(files)) {
    const parts = rel.split('/')
    for (let i = 1; i <= parts.length; i++) own(parts.slice(0, i).join('/'))
  }
  return root
}
