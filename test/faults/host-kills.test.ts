/**
 * A host killed (SIGKILL) at a random moment never leaves an isolate child behind: whatever the child was
 * doing — starting, warming up, running a program that spins or calls tools or starts slowly, a session's
 * run, trimming in a quiet moment — it is gone within a second of its host. Each host runs in a folder of
 * its own, which its children inherit as their working directory: that is how the survivors are counted.
 * Before the fix, a child whose program was spinning stayed, orphaned, its exit blocked behind that thread.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const RUNTIME = new URL('../../dist/runtime/index.js', import.meta.url).href

// Runs programs of one kind, over and over, until it is killed; quiet trims every 50 ms of idleness.
const HOST = `
  const { createRuntime } = await import(${JSON.stringify(RUNTIME)})
  const kind = process.argv[1]
  const rt = await createRuntime({
    typecheck: 'off',
    isolate: { quietMs: 50 },
    tools: [{ name: 'noop', description: 'nothing', parameters: { type: 'object' }, execute: () => 1 }],
  })
  const programs = {
    spin: 'for (;;) {}',
    calls: 'for (let i = 0; i < 1000; i++) await tools.noop({})',
    slowStart: 'const t = Date.now(); while (Date.now() - t < 300) {}',
    timers: 'await new Promise((r) => setTimeout(r, 100))',
    quiet: 'return 1',
  }
  const session = kind === 'session' ? rt.session({ id: 's' }) : undefined
  for (let i = 0; ; i++) {
    const code = programs[kind] ?? (i % 2 ? 'for (;;) {}' : 'globalThis.n = (globalThis.n ?? 0) + 1')
    await rt.runCode(code, { limits: { timeoutMs: 60_000 }, caller: String(i % 3), ...(session ? { session } : {}) })
    if (kind === 'quiet') await new Promise((r) => setTimeout(r, 40 + Math.random() * 80))
  }
`

const KINDS = ['start', 'spin', 'calls', 'slowStart', 'timers', 'quiet', 'session']

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** Processes whose working directory is `dir`. */
function processesIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readlinkSync(`/proc/${p}/cwd`) === dir
      } catch {
        return false
      }
    })
    .map(Number)
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('isolate children: never outlive a killed host', () => {
  it('40 hosts killed at random moments leave no child running a second later', { timeout: 300_000 }, async () => {
    const survivors: string[] = []
    let childrenSeen = 0
    for (let round = 0; round < 40; round++) {
      const kind = KINDS[round % KINDS.length]!
      const dir = mkdtempSync(join(tmpdir(), 'codeact-host-kill-'))
      dirs.push(dir)
      const host = spawn(process.execPath, ['--input-type=module', '-e', HOST, kind], { cwd: dir, stdio: 'ignore' })
      const exited = new Promise((r) => host.once('exit', r))
      // 'start': while the child loads and warms up; the others once programs run (the first start is ~0.5 s).
      const at = kind === 'start' ? Math.random() * 600 : 400 + Math.random() * 2000
      await sleep(at)
      childrenSeen += processesIn(dir).length - 1
      host.kill('SIGKILL')
      await exited
      await sleep(1000)
      for (const pid of processesIn(dir)) {
        survivors.push(`round ${round} (${kind}, killed at ${Math.round(at)} ms): pid ${pid}`)
        process.kill(pid, 'SIGKILL')
      }
    }
    console.log(`40 hosts killed: ${childrenSeen} children seen alive at the kills, ${survivors.length} survived`)
    expect(childrenSeen).toBeGreaterThan(20)
    expect(survivors).toEqual([])
  })
})
