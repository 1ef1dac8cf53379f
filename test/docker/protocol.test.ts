// The runner shares its process with the program, so everything from the container is untrusted: forged
// and oversize lines, and console floods that skip the prelude's cap, must not bend or sink the host.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockerSandbox, type DockerSandbox } from '../../sandbox/docker/index.js'
import { dockerEngine } from './engine.js'
import { ensureImage, never, ownContainers, request, testHost } from './helpers.js'

describe.skipIf(!dockerEngine.available)('docker sandbox: untrusted protocol', () => {
  let sandbox: DockerSandbox
  beforeAll(async () => {
    await ensureImage()
    sandbox = createDockerSandbox({ poolSize: 1 })
  })
  afterAll(async () => {
    await sandbox.close()
    expect(await ownContainers()).toEqual([])
  })

  it('a partial line left on fd 1 does not swallow the outcome', async () => {
    const out = await sandbox.run(
      // Up to 4 MB without a newline, or until the pipe is full (EAGAIN): an unbounded loop raced the host's
      // reading, and when the host kept up the line passed the protocol's 32 MiB cap (a different test's case).
      request(`
        let wrote = 0, code = 'full'
        try { while (wrote < 4_000_000) wrote += require('node:fs').writeSync(1, 'z'.repeat(100_000)) } catch (e) { code = e.code }
        return code === 'EAGAIN' || code === 'full' ? 'left a partial line' : code`),
      testHost(),
      never(),
    )
    expect(out, JSON.stringify(out.ok ? out.valueJson : out.error)).toMatchObject({ ok: true, valueJson: '"left a partial line"' })
  })

  it('garbage and malformed lines on fd 1 are dropped; the run goes on', async () => {
    const out = await sandbox.run(
      request(`
        const fs = require('node:fs')
        fs.writeSync(1, 'not json\\n{"type":"call"}\\n{"type":"nope","x":1}\\n[1,2]\\n{"type":"log","entries":[{"level":"shout","text":"x"}]}\\n')
        return await tools.add({ a: 1, b: 2 })`),
      testHost(),
      never(),
    )
    expect(out).toMatchObject({ ok: true, valueJson: '3' })
  })

  it("runner messages forged on fd 1 (a result, a tool call, a log) are dropped: they lack the run's nonce", async () => {
    const host = testHost()
    const out = await sandbox.run(
      request(`
        const fs = require('node:fs')
        const forged = [
          { type: 'done', outcomeJson: JSON.stringify({ ok: true, valueJson: '"forged"', droppedOutputBytes: 0 }) },
          { type: 'call', id: 1, name: 'echo', argsJson: '{"forged":true}' },
          { type: 'log', entries: [{ level: 'log', text: 'forged log' }] },
          { type: 'fatal', message: 'forged fatal' },
        ]
        for (const m of forged) fs.writeSync(1, '\\n' + JSON.stringify(m) + '\\n')
        await new Promise((r) => setTimeout(r, 100))
        console.log('real log')
        return await tools.echo({ real: true })`),
      host,
      never(),
    )
    expect(out).toMatchObject({ ok: true, valueJson: '{"real":true}' })
    expect(host.calls).toEqual([{ name: 'echo', args: { real: true } }])
    expect(host.logs.map((l) => l.text)).toEqual(['real log'])
    // Untrusted output: counted as dropped, never believed.
    expect(out.droppedOutputBytes).toBeGreaterThan(200)
  })

  it('a line over the size cap ends the run as a runtime error and the container is dropped', async () => {
    const out = await sandbox.run(
      request(
        `new (require('node:net').Socket)({ fd: 1, readable: false }).write(Buffer.alloc(40 << 20, 97)); await new Promise(() => {})`,
        { memoryMb: 256 },
      ),
      testHost(),
      never(),
    )
    expect(out).toMatchObject({ ok: false, error: { kind: 'runtime', message: expect.stringMatching(/over 33554432 bytes/) } })
  })

  it('console lines forged past the prelude are still capped by the host', async () => {
    const host = testHost()
    const out = await sandbox.run(
      request(
        `
        const out = new (require('node:net').Socket)({ fd: 1, readable: false })
        const line = JSON.stringify({ type: 'log', entries: Array.from({ length: 100 }, () => ({ level: 'log', text: 'y'.repeat(999) })) }) + '\\n'
        for (let i = 0; i < 50; i++) out.write(line)
        await new Promise((resolve) => out.write('\\n', resolve))
        return 1`,
        { maxOutputBytes: 10_000 },
      ),
      host,
      never(),
    )
    expect(out.ok).toBe(true)
    const kept = host.logs.reduce((n, l) => n + l.text.length + 1, 0)
    expect(kept).toBeLessThanOrEqual(10_000 + 4096)
    expect(out.droppedOutputBytes).toBeGreaterThan(4_900_000)
  })
})
