/**
 * Faults around the Docker backend: a container OOM-killed by its cgroup. The caller gets a typed
 * `memory` outcome, every call is answered, the next run works, and closing leaves no container behind.
 */
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { createRuntime } from '../../runtime/index.js'
import { unansweredCalls } from '../security/log-invariants.js'

function ourContainers(): string[] {
  const out = execFileSync(
    'docker',
    ['ps', '-aq', '--filter', 'label=codeact', '--filter', `label=codeact.owner=${hostname()}:${process.pid}`],
    { encoding: 'utf8' },
  )
  return out.split('\n').filter(Boolean)
}
function hostname(): string {
  return execFileSync('hostname', { encoding: 'utf8' }).trim()
}

describe.skipIf(process.env['CODEACT_DOCKER'] !== '1')('docker faults', () => {
  it('a container OOM-killed mid-run: memory, every call answered, the next run works, nothing left', async () => {
    const rt = await createRuntime({
      sandbox: 'docker',
      typecheck: 'off',
      docker: { poolSize: 1 },
      tools: [{ name: 'echo', description: 'e', parameters: { type: 'object' }, execute: (a: unknown) => a }],
    })
    try {
      const result = await rt.runCode(
        `await tools.echo({ before: true }); const keep = []; for (;;) keep.push(new Uint8Array(4 << 20).fill(7))`,
        { limits: { memoryMb: 96, timeoutMs: 20_000 } },
      )
      expect(result.ok).toBe(false)
      expect(result.error?.kind, result.observation).toBe('memory')
      expect(unansweredCalls(rt.log.all())).toEqual([])
      const next = await rt.runCode('return await tools.echo({ after: true })')
      expect(next.value).toEqual({ after: true })
    } finally {
      await rt.close()
    }
    expect(ourContainers()).toEqual([])
  }, 120_000)
})
