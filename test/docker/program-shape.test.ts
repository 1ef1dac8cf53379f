// The Docker twin of test/runtime/program-shape.test.ts: the same programs, the same answers, in a container.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import { SHAPE_CASES, shapeTools } from '../support/shape-cases.js'
import { dockerEngine } from './engine.js'
import { ensureImage } from './helpers.js'

describe.skipIf(!dockerEngine.available)('program shapes and rendering (docker)', () => {
  const sent: string[] = []
  let rt: Runtime
  beforeAll(async () => {
    await ensureImage()
    rt = await createRuntime({ sandbox: 'docker', typecheck: 'off', tools: shapeTools(sent), docker: { poolSize: 2 } })
    await rt.sandbox.start()
  }, 120_000)
  afterAll(async () => {
    await rt?.close()
  })

  for (const c of SHAPE_CASES) {
    it(c.name, async () => {
      c.check(await rt.runCode(c.code))
    }, 60_000)
  }

  it('sends 3 of 3 e-mails from users.forEach(async …), every time', async () => {
    const counts: number[] = []
    for (let i = 0; i < 8; i++) {
      sent.length = 0
      const r = await rt.runCode("['a@x', 'b@x', 'c@x'].forEach(async (to) => { await tools.send_email({ to }) })")
      expect(r.error, r.observation).toBeNull()
      counts.push(sent.length)
    }
    expect(counts).toEqual(Array(8).fill(3))
  }, 120_000)

  it("rewrites node: imports into awaited dynamic imports (the container's own modules)", async () => {
    const r = await rt.runCode("import { join } from 'node:path'\nimport os from 'node:os'\nreturn [join('a', 'b'), typeof os.platform()]")
    expect(r.error, r.observation).toBeNull()
    expect(r.value).toEqual(['a/b', 'string'])
  }, 60_000)
})
