/**
 * The program corpus (test/programs) checked by the shared checker (program/checker-daemon.ts, as `codeact
 * run` uses it) says exactly what the process's own checker says: the same verdict, message and notes for
 * every program, the daemon cold for the first and warm for the rest. A state folder of its own; the daemon
 * is ended at the end.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { shareChecker, sharedCheckerState } from '../../program/checker-client.js'
import { createRuntime } from '../../runtime/create-runtime.js'
import type { RunResult } from '../../vocabulary/types.js'
import type { ProgramCase } from '../programs/case.js'
import { corpusTools, corpusWorkspace } from '../programs/tools.js'

const dir = fileURLToPath(new URL('../programs/cases', import.meta.url))
const cases: ProgramCase[] = []
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .sort())
  cases.push(...((await import(`../programs/cases/${file}`)) as { cases: ProgramCase[] }).cases)

const state = mkdtempSync(join(tmpdir(), 'codeact-cold35-corpus-'))

/** What the model reads of a run, without its timings. */
function verdict(r: RunResult): string {
  const said = r.observation.replace(/\d+(\.\d+)? ?(ms|s)\b/g, 'T')
  return JSON.stringify({ ok: r.ok, kind: r.error?.kind, message: r.error?.message, value: r.value, said })
}

async function runAll(): Promise<string[]> {
  const rt = await createRuntime({ tools: corpusTools(), workspace: { root: corpusWorkspace() }, typecheck: 'error' })
  try {
    const out: string[] = []
    for (const c of cases) out.push(verdict(await rt.runCode(c.code)))
    return out
  } finally {
    await rt.close()
  }
}

afterAll(() => {
  const sockets = join(state, 'checker')
  for (const f of readdirSync(sockets).filter((f) => f.endsWith('.pid'))) {
    try {
      process.kill(Number(readFileSync(join(sockets, f), 'utf8').trim()))
    } catch {
      // gone
    }
  }
  rmSync(state, { recursive: true, force: true })
})

describe('the shared checker on the program corpus', () => {
  it('gives every program the verdict its own process gives', async () => {
    expect(cases.length).toBeGreaterThanOrEqual(80)
    const alone = await runAll()
    const env: NodeJS.ProcessEnv = { ...process.env, CODEACT_STATE_DIR: state }
    delete env.CODEACT_CHECKER_DAEMON
    shareChecker(env)
    const shared = await runAll()
    expect(sharedCheckerState()).toEqual({ state: 'shared' })
    for (const [i, c] of cases.entries()) expect(shared[i], c.name).toBe(alone[i])
  }, 600_000)
})
