/**
 * `await rt.close()` as a script's last act settles and the script exits by itself (code 0, not 13 for
 * a top-level await the event loop gave up on, and not hanging on a handle left behind) in every state
 * the sandbox can be in: right after a run stopped by `maxToolCalls`, mid-run, mid-start, right after its
 * process was killed, called twice, while a caller waits for a process. Each case is a real Node process
 * running the built package, repeated. Also: a deadline too large for a Node timer does not fire at once.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createIsolateSandbox } from '../../sandbox/isolate/index.js'
import { RecordingHost, never, request } from './fixtures/isolate-host.js'

const RUNTIME = fileURLToPath(new URL('../../dist/runtime/index.js', import.meta.url))

const PREAMBLE = `
import { createRuntime } from ${JSON.stringify(RUNTIME)}
const echo = { name: 'echo', description: 'e', parameters: { type: 'object' }, execute: (a) => a }
const slow = { name: 'slow', description: 's', parameters: { type: 'object' }, execute: (_a, ctx) => new Promise((r) => { const t = setTimeout(r, 5000); ctx.signal.addEventListener('abort', () => { clearTimeout(t); r(null) }) }) }
`

/** Run a script to its natural end; its stdout and exit code. */
function script(body: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', PREAMBLE + body], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    // Hanging on a stray handle is a failure too; far longer than any case needs.
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

const CASES: [string, string][] = [
  [
    'right after a run stopped by maxToolCalls',
    `const rt = await createRuntime({ tools: [echo], typecheck: 'off', limits: { maxToolCalls: 5 } })
     const r = await rt.runCode('while (true) await tools.echo({})')
     if (r.error?.code !== 'EDQUOT') throw new Error(r.observation)
     await rt.close()`,
  ],
  [
    'mid-run (the run ends aborted)',
    `const rt = await createRuntime({ tools: [slow], typecheck: 'off' })
     await rt.sandbox.start()
     const run = rt.runCode('await tools.slow({}); return 1')
     await new Promise((r) => setTimeout(r, 100))
     await rt.close()
     const r = await run
     if (r.ok) throw new Error('the run should not have finished')`,
  ],
  [
    'mid-start (the process is still spawning)',
    `const rt = await createRuntime({ typecheck: 'off' })
     await rt.close()`,
  ],
  [
    'mid-start with a run waiting for the process',
    `const rt = await createRuntime({ typecheck: 'off' })
     const run = rt.runCode('return 1')
     await new Promise((r) => setImmediate(r))
     await rt.close()
     await run`,
  ],
  [
    'right after its process was killed',
    `const rt = await createRuntime({ tools: [slow], typecheck: 'off' })
     await rt.runCode('return 1')
     const run = rt.runCode('await tools.slow({})')
     await new Promise((r) => setTimeout(r, 100))
     process.kill(rt.sandbox.pidOf(), 'SIGKILL')
     await rt.close()
     await run`,
  ],
  [
    'twice at once, then again',
    `const rt = await createRuntime({ tools: [echo], typecheck: 'off', limits: { maxToolCalls: 3 } })
     await rt.runCode('while (true) await tools.echo({})')
     await Promise.all([rt.close(), rt.close()])
     await rt.close()`,
  ],
  [
    'with callers in their own processes and one waiting for a process',
    `const rt = await createRuntime({ tools: [slow, echo], typecheck: 'off', isolate: { maxProcesses: 1 } })
     const a = rt.runCode('await tools.slow({})', { caller: 'a' })
     await new Promise((r) => setTimeout(r, 200))
     const b = rt.runCode('return 1', { caller: 'b' })
     await new Promise((r) => setTimeout(r, 50))
     await rt.close()
     await Promise.all([a, b])`,
  ],
  [
    'with a process per run, mid-run',
    `const rt = await createRuntime({ tools: [slow], typecheck: 'off', isolate: { isolation: 'run' } })
     const runs = [rt.runCode('await tools.slow({})'), rt.runCode('await tools.slow({})')]
     await new Promise((r) => setTimeout(r, 300))
     await rt.close()
     await Promise.all(runs)`,
  ],
]

describe('close() settles and holds the event loop until it is done', () => {
  for (const [name, body] of CASES) {
    it(`${name}: the script ends by itself, exit code 0`, async () => {
      // The old failure was a race (a late message from the child let go of the event loop): repeat.
      const results = await Promise.all(
        Array.from({ length: name.includes('maxToolCalls') ? 6 : 2 }, () => script(`${body}\nconsole.log('closed')`)),
      )
      for (const r of results) expect({ code: r.code, stdout: r.stdout.trim() }, r.stderr).toEqual({ code: 0, stdout: 'closed' })
    }, 120_000)
  }
})

describe('deadlines too large for a Node timer', () => {
  it.each([2 ** 31, 2 ** 31 + 5000, 1e12, Number.MAX_SAFE_INTEGER])('timeoutMs %d does not time the run out at once', async (timeoutMs) => {
    const sandbox = createIsolateSandbox()
    try {
      const outcome = await sandbox.run(
        request('await tools.slow({ ms: 50 }); return "finished"', { timeoutMs }),
        new RecordingHost(),
        never(),
      )
      expect(outcome).toMatchObject({ ok: true, valueJson: '"finished"' })
    } finally {
      await sandbox.close()
    }
  })
})
