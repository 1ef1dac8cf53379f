// The pids limit, attacked: a fork past it fails the fork (EAGAIN, an error the program can catch), never
// the runner — under runc and under gVisor, whose kernel shares the container's cgroup with the program.
// The run answers, names the failure, and the same sandbox serves the next run.
import { describe, expect, it } from 'vitest'
import type { SandboxOutcome } from '../../sandbox/types.js'
import { dockerRuntimeCases } from './engine.js'
import { never, request, testHost } from './helpers.js'
import { suiteSandboxes } from './suite.js'

function value(out: SandboxOutcome): unknown {
  if (!out.ok) throw new Error(`run failed: ${out.error.kind}: ${out.error.message}`)
  return out.valueJson === undefined ? undefined : JSON.parse(out.valueJson)
}

/** Spawns `n` children of `cmd` at once (kept alive 5 s) and counts how each spawn ended. */
const spawnMany = (n: number, cmd: string, args: string[]): string => `
  const { spawn } = require('node:child_process')
  const results = await Promise.all(Array.from({ length: ${n} }, () => new Promise((resolve) => {
    try {
      const c = spawn(${JSON.stringify(cmd)}, ${JSON.stringify(args)}, { stdio: 'ignore' })
      c.on('spawn', () => resolve('ok'))
      c.on('error', (e) => resolve(e.code))
    } catch (e) { resolve(e.code) }
  })))
  const counts = {}
  for (const r of results) counts[r] = (counts[r] || 0) + 1
  return counts`

for (const runtime of dockerRuntimeCases) {
  describe.skipIf(runtime.skip !== undefined)(`docker sandbox: the pids limit (${runtime.name})`, () => {
    const make = suiteSandboxes({ poolSize: 0, memoryMb: 512, ...runtime.option })

    it('400 spawns against the default limit: the ones past it fail with EAGAIN, the run answers', async () => {
      const sandbox = make({})
      const counts = value(await sandbox.run(request(spawnMany(400, '/usr/bin/sleep', ['5'])), testHost(), never())) as Record<
        string,
        number
      >
      expect(counts.ok).toBeGreaterThan(50)
      expect(counts.ok).toBeLessThan(128)
      expect(counts.EAGAIN).toBeGreaterThan(100)
      // The container's other limit (1024 open files) may refuse some first; nothing else.
      expect(Object.keys(counts).filter((k) => !['ok', 'EAGAIN', 'EMFILE'].includes(k))).toEqual([])
    })

    it('a shell fork bomb, sh children and Worker threads at once, under a tight limit: the runner survives and says EAGAIN', async () => {
      const sandbox = make({ pidsLimit: 48 })
      const out = await sandbox.run(
        request(
          `
        const cp = require('node:child_process')
        const { Worker } = require('node:worker_threads')
        cp.spawn('/bin/sh', ['-c', 'b() { b | b & }; b'], { stdio: 'ignore' }).on('error', () => {})
        const codes = new Set()
        for (let i = 0; i < 100; i++) {
          try { cp.spawn('/bin/sh', ['-c', 'sleep 5'], { stdio: 'ignore' }).on('error', (e) => codes.add(e.code)) } catch (e) { codes.add(e.code) }
        }
        for (let i = 0; i < 20; i++) {
          try { new Worker('setTimeout(() => {}, 5000)', { eval: true }).on('error', (e) => codes.add(e.code)) } catch (e) { codes.add(e.code); break }
        }
        await new Promise((r) => setTimeout(r, 1500))
        let sync
        try { cp.execFileSync('/bin/sh', ['-c', ':']); sync = 'ran' } catch (e) { sync = e.code }
        return { codes: [...codes].sort(), sync }`,
          { timeoutMs: 30_000 },
        ),
        testHost(),
        never(),
      )
      const v = value(out) as { codes: string[]; sync: string }
      expect(v.codes).toContain('EAGAIN')
      expect(['ran', 'EAGAIN']).toContain(v.sync)
    })

    it('a fork the program does not catch fails the run naming EAGAIN, and the sandbox serves the next run', async () => {
      const sandbox = make({ pidsLimit: 32 })
      const out = await sandbox.run(
        request(`const cp = require('node:child_process')
        const kids = []
        for (let i = 0; i < 200; i++) kids.push(cp.spawn('/usr/bin/sleep', ['5'], { stdio: 'ignore' }))
        await new Promise((r) => setTimeout(r, 1000))
        return 'not reached'`),
        testHost(),
        never(),
      )
      expect(out.ok).toBe(false)
      if (out.ok) return
      expect(out.error.kind).toBe('runtime')
      expect(out.error.message).toMatch(/EAGAIN/)
      expect(value(await sandbox.run(request('return 1 + 1'), testHost(), never()))).toBe(2)
    })
  })
}
