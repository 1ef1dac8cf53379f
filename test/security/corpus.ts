/**
 * The attack corpus and the one function that runs it against a backend. After every attempt: the
 * outcome is the one expected, the host's prototypes are intact, its secret appears nowhere in what came
 * back, every `tool/call` in the log has its `tool/result`, and the same runtime runs the next program.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/index.js'
import type { RunResult } from '../../vocabulary/types.js'
import type { Attack, Expect } from './attack.js'
import { bridgeAttacks } from './attacks-bridge.js'
import { escapeAttacks } from './attacks-escape.js'
import { resourceAttacks } from './attacks-resources.js'
import { unansweredCalls } from './log-invariants.js'
import { hostPrototypesIntact, probeTools, type HostRecord } from './probe-tools.js'

export const ATTACKS: readonly Attack[] = [...escapeAttacks, ...bridgeAttacks, ...resourceAttacks]

/** A secret in the host's environment: no program may ever get it back. */
export const SECRET = `s3cret-${process.pid}-${Math.random().toString(36).slice(2)}`
process.env['CODEACT_CORPUS_SECRET'] = SECRET

export type Backend = 'isolate' | 'docker'

export function expectOutcome(result: RunResult, want: Expect): void {
  if ('value' in want) {
    expect(result.error, result.observation).toBeNull()
    expect(result.ok).toBe(true)
    expect(result.value).toEqual(want.value)
    return
  }
  expect(result.ok, result.observation).toBe(false)
  expect(result.error?.kind, result.observation).toBe(want.error)
  if (want.code !== undefined) expect(result.error?.code).toBe(want.code)
  if (want.message) expect(result.error?.message).toMatch(want.message)
}

function matches(result: RunResult, want: Expect): boolean {
  try {
    expectOutcome(result, want)
    return true
  } catch {
    return false
  }
}

/** `docker`: extra Docker options (the OCI runtime); `label` names the variant in the suite's title. */
export function runCorpus(
  backend: Backend,
  attacks: readonly Attack[] = ATTACKS,
  variant: { docker?: Record<string, unknown>; label?: string } = {},
): void {
  describe(`attack corpus (${variant.label ?? backend})`, () => {
    const record: HostRecord = { saw: [] }
    let rt: Runtime
    beforeAll(async () => {
      rt = await createRuntime({
        sandbox: backend,
        typecheck: 'off',
        tools: probeTools(record),
        ...(backend === 'docker' ? { docker: { poolSize: 2, ...variant.docker } } : {}),
      })
      await rt.sandbox.start()
    })
    afterAll(async () => {
      await rt?.close()
    })

    it('has at least 40 attempts, each named and citing the escape it models', () => {
      expect(attacks.length).toBeGreaterThanOrEqual(40)
      expect(new Set(attacks.map((a) => a.name)).size).toBe(attacks.length)
      for (const a of attacks) expect(a.cite.length, a.name).toBeGreaterThan(10)
    })

    for (const attack of attacks) {
      it(`${attack.name} [${attack.cite.split(/[:;(]/)[0]!.trim()}]`, async () => {
        if (attack.before) {
          const first = await rt.runCode(attack.before, attack.beforeLimits ? { limits: attack.beforeLimits } : {})
          expect(first.error?.kind ?? null, first.observation).toBe(attack.beforeError ?? null)
        }
        record.saw.length = 0
        const result = await rt.runCode(attack.code, attack.limits ? { limits: attack.limits } : {})
        const want = (backend === 'docker' && attack.docker) || attack.expect
        expectOutcome(result, attack.orElse && matches(result, attack.orElse) ? attack.orElse : want)
        if (attack.toolSaw) expect(record.saw).toEqual(attack.toolSaw)
        attack.check?.(result)

        // The host is unharmed: its prototypes, its secret, its log, and the next run.
        expect(hostPrototypesIntact()).toBe(true)
        expect(JSON.stringify(result)).not.toContain(SECRET)
        const next = await rt.runCode('return [1 + 1, await tools.echo({ next: true })]')
        expect(next.error, next.observation).toBeNull()
        expect(next.value).toEqual([2, { next: true }])
        expect(unansweredCalls(rt.log.all())).toEqual([])
      }, 120_000)
    }
  })
}
