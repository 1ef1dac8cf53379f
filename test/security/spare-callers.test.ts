/**
 * Attack: get two callers into one process through the start-up shortcuts — the child `codeact run`
 * prestarts (spare-child.ts prestartChild), the process-wide spare (`shareSpare`) and the warm-up run a
 * fresh child makes. Each caller of each runtime, raced, must get a process no other caller ever had, and
 * its first run must see nothing left in it (the warm-up included).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/index.js'
import { resolveChildEntry } from '../../sandbox/isolate/child-path.js'
import type { IsolateSandbox } from '../../sandbox/isolate/index.js'
import { DEFAULT_CHILD_CONFIG } from '../../sandbox/isolate/protocol.js'
import { dropPrestarted, prestartChild } from '../../sandbox/isolate/spare-child.js'

const opened: Runtime[] = []
afterEach(async () => {
  for (const rt of opened.splice(0)) await rt.close()
  await dropPrestarted()
})

const PROBE = 'const seen = globalThis.__mark ?? null; globalThis.__mark = "left by an earlier run"; return seen'

describe('attack: sharing a process across callers through the spare, the prestarted child or the warm-up', () => {
  it('every caller of every runtime runs in a process of its own, and sees nothing of an earlier run', async () => {
    const entry = resolveChildEntry()
    if (!entry.ok) throw new Error(entry.message)
    prestartChild(entry.path, DEFAULT_CHILD_CONFIG)
    const a = await createRuntime({ typecheck: 'off', isolate: { shareSpare: true } })
    const b = await createRuntime({ typecheck: 'off', isolate: { shareSpare: true } })
    opened.push(a, b)
    const owner = new Map<number, string>()
    for (let round = 0; round < 3; round++) {
      const runs = [a, b].flatMap((rt, r) =>
        ['x', 'y', undefined].map(async (caller) => {
          const result = await rt.runCode(PROBE, caller !== undefined ? { caller } : {})
          expect(result.value).toBeNull()
          const who = `${r}:${caller ?? '(own)'}`
          const pid = (rt.sandbox as IsolateSandbox).pidOf(caller)
          expect(pid).toBeDefined()
          // A process, once it served one caller, never serves another.
          expect(owner.get(pid!) ?? who).toBe(who)
          owner.set(pid!, who)
        }),
      )
      await Promise.all(runs)
    }
    expect(owner.size).toBe(6)
  })
})
