/**
 * More live sessions than isolate processes (an MCP server with more connections than `--max-processes`):
 * a session's realm may be taken for another caller between its turns, and is then restored by replay; no
 * turn may come back with another turn's state or with its bindings gone. Before the session grace in
 * sandbox/isolate/caller-pool.ts, a child was taken between a restore's replayed runs, the restore failed,
 * and the session began afresh: 12 sessions over 8 processes got 62 of 72 turns wrong.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'

let rt: Runtime | undefined
afterEach(async () => {
  await rt?.close()
  rt = undefined
})

/** Each session counts its own turns in a binding; the wrong turns, as text. */
async function countInSessions(runtime: Runtime, sessions: number, turns: number, pauseMs: number): Promise<string[]> {
  const wrong = await Promise.all(
    Array.from({ length: sessions }, async (_, c) => {
      const session = runtime.session({ id: `s${c}`, caller: `c${c}` })
      const first = await session.runCode(`let n = 0; const mine = "s${c}"; return mine`)
      const bad: string[] =
        first.ok && first.value === `s${c}` ? [] : [`s${c} start: ${first.ok ? String(first.value) : first.error?.message}`]
      for (let i = 1; i <= turns; i++) {
        if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs))
        const r = await session.runCode('n += 1; return `${mine}:${n}`')
        if (!r.ok || r.value !== `s${c}:${i}`) bad.push(`s${c} turn ${i}: ${r.ok ? String(r.value) : r.error?.message}`)
      }
      return bad
    }),
  )
  return wrong.flat()
}

describe('sessions past maxProcesses', () => {
  it('turns back to back: every turn sees its own session’s state', async () => {
    rt = await createRuntime({ typecheck: 'off', isolate: { maxProcesses: 2 } })
    expect(await countInSessions(rt, 5, 4, 0)).toEqual([])
  })

  it('turns further apart than the grace: realms are taken and restored, every turn still right', async () => {
    rt = await createRuntime({ typecheck: 'off', isolate: { maxProcesses: 2 } })
    expect(await countInSessions(rt, 4, 3, 300)).toEqual([])
  })
})
