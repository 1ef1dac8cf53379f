/**
 * The checker's thread with the check on (the real dist/program/typecheck-worker.js, started as the pool starts
 * it): a program oxc compiles has its compiled text in the same message as its normalised text, before the
 * check's answer — one message fewer than a separate CompiledMessage — and a program only esbuild compiles
 * (a namespace) still gets its CompiledMessage after the check. Either way the check's diagnostics are the
 * program's own, and the compiled text is the one the run would execute.
 */
import { Worker } from 'node:worker_threads'
import { afterAll, describe, expect, it } from 'vitest'
import { renderDeclarations } from '../../sdk/declarations.js'
import { basicTools } from '../support/tools.js'

const WORKER = new URL('../../dist/program/typecheck-worker.js', import.meta.url)
const declarations = renderDeclarations(basicTools)

type Message = Record<string, unknown> & { id?: number }
const worker = new Worker(WORKER, { execArgv: [], workerData: { warmChecker: true } })
const seen: Message[] = []
worker.on('message', (m: Message) => seen.push(m))
afterAll(async () => {
  await worker.terminate()
})

/** Every message of request `id`, up to and including its answer (the one with `ok`). */
async function request(id: number, source: string): Promise<Message[]> {
  worker.postMessage({ id, declarations, source, normalise: { allowNodeImports: false, compile: true } })
  for (;;) {
    const mine = seen.filter((m) => m.id === id)
    if (mine.some((m) => 'ok' in m)) return mine.filter((m) => !('warmed' in m) && !('stage' in m))
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

describe("the checker's thread, check on", () => {
  it('sends what oxc compiled with the normalised text, then the check', async () => {
    const messages = await request(1, 'const sum = await tools.add({ a: 1, b: 2 })\nreturn sum')
    expect(messages).toHaveLength(2)
    expect(messages[0]).toMatchObject({ normalised: { text: expect.stringContaining('tools.add') }, compiled: { ok: true, by: 'oxc' } })
    expect((messages[0]!.compiled as { code: string }).code).toContain('tools.add')
    expect(messages[1]).toMatchObject({ ok: true, diagnostics: [] })
  }, 60_000)

  it("a type error is still the check's answer when oxc compiled the program", async () => {
    const messages = await request(2, 'const sum = await tools.ad({ a: 1, b: 2 })\nreturn sum')
    expect(messages[0]).toMatchObject({ compiled: { ok: true, by: 'oxc' } })
    const answer = messages.at(-1) as { ok: boolean; diagnostics: { message: string; line: number; severity: string }[] }
    expect(answer.diagnostics).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/tools\.add/), line: 1, severity: 'error' }),
    ])
  }, 60_000)

  it('sends what esbuild compiled after the check, as before', async () => {
    const messages = await request(3, 'namespace N {\n  export const x = 41\n}\nreturn N.x + 1')
    expect(messages).toHaveLength(3)
    expect(messages[0]).toHaveProperty('normalised')
    expect(messages[0]).not.toHaveProperty('compiled')
    expect(messages[1]).toMatchObject({ compiled: { ok: true, by: 'esbuild' } })
    expect(messages[2]).toMatchObject({ ok: true, diagnostics: [] })
  }, 60_000)
})
