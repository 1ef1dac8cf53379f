/**
 * What a program's tool call is answered with is the committed result's JSON text, made when the call commits
 * (runtime/scheduler.ts's submitJson): the value as the tool gave it, a post-execute hook's replacement if one
 * replaced it, and a failed call — not a stuck or crashed run — when a hook's replacement cannot be JSON.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/index.js'
import type { AnyToolDefinition } from '../../vocabulary/types.js'

const echo: AnyToolDefinition = {
  name: 'echo',
  description: 'Answers its argument after a turn.',
  parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  execute: async (args: { n: number }) => ({ n: args.n, text: `é${args.n}😀` }),
}

let rt: Runtime | undefined
afterEach(async () => {
  await rt?.close()
  rt = undefined
})

describe("a program's call answers", () => {
  it('carry the tool values, in order, for calls in parallel and in sequence', async () => {
    rt = await createRuntime({ tools: [echo], typecheck: 'off' })
    const r = await rt.runCode(
      'const all = await Promise.all([1, 2, 3].map((n) => tools.echo({ n }))); const one = await tools.echo({ n: 4 }); return [...all, one]',
    )
    expect(r.ok).toBe(true)
    expect(r.value).toEqual([1, 2, 3, 4].map((n) => ({ n, text: `é${n}😀` })))
  })

  it("carry a post-execute hook's replacement", async () => {
    rt = await createRuntime({ tools: [echo], typecheck: 'off' })
    rt.hooks.on('post-execute', (_call, result) => (result.ok ? { ok: true, value: 'replaced' } : result))
    const r = await rt.runCode('return await tools.echo({ n: 1 })')
    expect(r.value).toBe('replaced')
  })

  it('fail the call, and only it, when a hook replaces the result with what is not JSON', async () => {
    rt = await createRuntime({ tools: [echo], typecheck: 'off' })
    rt.hooks.on('post-execute', (call, result) => ((call.args as { n: number }).n === 2 ? { ok: true, value: 10n as never } : result))
    const r = await rt.runCode(
      'const out = []; for (const n of [1, 2, 3]) { try { out.push(await tools.echo({ n })) } catch (e) { out.push(String(e.code)) } } return out',
    )
    expect(r.ok).toBe(true)
    expect(r.value).toEqual([{ n: 1, text: 'é1😀' }, 'EIO', { n: 3, text: 'é3😀' }])
  })
})
