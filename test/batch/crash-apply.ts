/**
 * A host SIGKILLed in the middle of an atomic apply, on a backend's flags: each file is either old or new
 * (never half written), and the next start can tell — it finishes the apply from the journal, so every file
 * ends new. crash.test.ts runs it on the isolate sandbox, crash-docker.test.ts on Docker.
 */
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { stagesOf } from '../../sandbox/workspace/staging/stage-dir.js'
import { STATE_DIR, codeact, program } from './helpers.js'

const N = 6_000
const name = (i: number): string => `src/f${String(i).padStart(4, '0')}.txt`
const OLD = (i: number): string => `old ${i}\n`.repeat(20)
const NEW = (i: number): string => `new ${i}\n`.repeat(20)

const JOB = `
const files = await tools.glob({ pattern: 'src/*.txt' })
for (let i = 0; i < files.length; i += 20) {
  await Promise.all(files.slice(i, i + 20).map(async (path) => {
    const text = await tools.read_file({ path })
    await tools.write_file({ path, content: text.replaceAll('old', 'new') })
  }))
}
return files.length`

/** `flags`: the backend's (`[]` for the isolate sandbox); `makeWorkspace`: a temp tree of these files. */
export async function sigkillDuringApply(
  flags: readonly string[],
  makeWorkspace: (files: Record<string, string>) => string,
): Promise<void> {
  const files: Record<string, string> = {}
  for (let i = 0; i < N; i++) files[name(i)] = OLD(i)
  const root = makeWorkspace(files)
  const stages = stagesOf(STATE_DIR, root)
  const child = spawn(
    process.execPath,
    ['bin/codeact.mjs', 'run', program(JOB), '--workspace', root, '--atomic', '--typecheck=off', '--timeout', '120s', ...flags],
    {
      env: { ...process.env, CODEACT_STATE_DIR: STATE_DIR },
      stdio: 'ignore',
    },
  )
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  // Wait for the journal, then for the first file to be replaced: the apply is under way.
  // A deadline, not a count of spins: under gVisor the 6,000 files take ~40 s to reach the apply at rest.
  let killedAt = -1
  const until = Date.now() + 200_000
  for (let spins = 0; Date.now() < until && killedAt < 0; spins++) {
    const journaled = existsSync(stages) && readdirSync(stages).some((id) => existsSync(join(stages, id, 'journal.json')))
    if (journaled && readFileSync(join(root, name(0)), 'utf8') === NEW(0)) {
      child.kill('SIGKILL')
      killedAt = spins
    } else await new Promise((r) => setTimeout(r, 1))
  }
  await exited
  expect(killedAt).toBeGreaterThanOrEqual(0)

  let fresh = 0
  for (let i = 0; i < N; i++) {
    const text = readFileSync(join(root, name(i)), 'utf8')
    expect([OLD(i), NEW(i)]).toContain(text)
    if (text === NEW(i)) fresh++
  }
  // Killed mid-apply: some files new, not all (the apply takes long enough at 6,000 files).
  expect(fresh).toBeGreaterThan(0)
  expect(fresh).toBeLessThan(N)
  const temps = readdirSync(join(root, 'src')).filter((f) => f.startsWith('.'))
  expect(temps.length).toBeLessThanOrEqual(1)

  // The next start, any command with this workspace, finishes it.
  const next = codeact(['run', '-', '--workspace', root, '--typecheck=off', ...flags], 'return 1')
  expect(next.status).toBe(0)
  expect(next.stderr).toContain(`was interrupted (the host was killed); finished it from its journal: ${N} change(s)`)
  for (let i = 0; i < N; i++) expect(readFileSync(join(root, name(i)), 'utf8')).toBe(NEW(i))
  expect(readdirSync(join(root, 'src')).filter((f) => f.startsWith('.'))).toEqual([])
  expect(existsSync(stages) ? readdirSync(stages) : []).toEqual([])
}
