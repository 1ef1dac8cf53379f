/**
 * The Docker attack corpus (attacks-docker.ts) through the whole runtime, once per OCI runtime (runc and
 * gVisor's runsc). After every attempt: the outcome expected, the host's prototypes intact, its secret
 * nowhere in what came back, every call answered, and the next program runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/index.js'
import type { RunResult } from '../../vocabulary/types.js'
import { dockerRuntimeCases } from '../docker/engine.js'
import { ownContainers } from '../docker/helpers.js'
import type { Expect } from './attack.js'
import { dockerAttacks } from './attacks-docker.js'
import { expectOutcome, SECRET } from './corpus.js'
import { unansweredCalls } from './log-invariants.js'
import { hostPrototypesIntact, probeTools, type HostRecord } from './probe-tools.js'

function expectOneOf(result: RunResult, wants: Expect[]): void {
  const failures: string[] = []
  for (const want of wants) {
    try {
      return expectOutcome(result, want)
    } catch (e) {
      failures.push((e as Error).message.split('\n')[0] ?? '')
    }
  }
  throw new Error(`none of the accepted outcomes: ${failures.join(' | ')}\n${result.observation.slice(0, 2000)}`)
}

for (const runtime of dockerRuntimeCases) {
  describe.skipIf(process.env['CODEACT_DOCKER'] !== '1' || runtime.skip !== undefined)(
    `docker attacks at run time (${runtime.name})`,
    () => {
      const record: HostRecord = { saw: [] }
      let rt: Runtime
      beforeAll(async () => {
        rt = await createRuntime({
          sandbox: 'docker',
          typecheck: 'off',
          tools: probeTools(record),
          docker: { poolSize: 1, ...runtime.option },
        })
        await rt.sandbox.start()
      })
      afterAll(async () => {
        await rt?.close()
        expect(await ownContainers()).toEqual([])
      })

      for (const attack of dockerAttacks) {
        it(`${attack.name}`, async () => {
          const result = await rt.runCode(attack.code, attack.limits ? { limits: attack.limits } : {})
          const e = attack.expect
          const want = 'all' in e ? e.all : runtime.name === 'runsc' ? e.runsc : e.runc
          expectOneOf(result, Array.isArray(want) ? want : [want])

          expect(hostPrototypesIntact()).toBe(true)
          expect(JSON.stringify(result)).not.toContain(SECRET)
          const next = await rt.runCode('return [1 + 1, await tools.echo({ next: true })]')
          expect(next.error, next.observation).toBeNull()
          expect(next.value).toEqual([2, { next: true }])
          expect(unansweredCalls(rt.log.all())).toEqual([])
        }, 180_000)
      }

      it('combined and raced: a fork bomb, a memory bomb and an output flood at once, then a plain run', async () => {
        const byName = (part: string) => {
          const a = dockerAttacks.find((x) => x.name.startsWith(part))
          if (!a) throw new Error(`no attack ${part}`)
          return rt.runCode(a.code, { limits: { ...a.limits, timeoutMs: 30_000 } })
        }
        const rss = process.memoryUsage().rss
        const [pids, memory, flood] = await Promise.all([byName('pids'), byName('memory'), byName('output floods')])
        // Three bombs in one machine at once: the fork bomb's shells and threads can also end in its OOM kill.
        expect(['timeout', 'runtime', 'memory', undefined]).toContain(pids.error?.kind)
        expect(memory.error?.kind, memory.observation).toBe('memory')
        // The flood ends with its value, or — when the other two bombs take the machine's time — at its deadline.
        if (flood.error) expect(flood.error.kind, flood.observation).toBe('timeout')
        else expect(flood.value, flood.observation).toBe('real')
        // What the flood wrote (about 100 MB) was dropped as it came, not kept by the host.
        expect(process.memoryUsage().rss - rss).toBeLessThan(400 * 1024 * 1024)
        const next = await rt.runCode('return await tools.echo({ after: "all three" })')
        expect(next.value).toEqual({ after: 'all three' })
        expect(unansweredCalls(rt.log.all())).toEqual([])
      }, 240_000)
    },
  )
}
