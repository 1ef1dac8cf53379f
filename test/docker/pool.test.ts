// The warm pool and the engine list: ready containers are taken and never reused, idle ones go, the
// memory size follows the runs, and a dead engine in the list is skipped for a live one.
import Docker from 'dockerode'
import { describe, expect, it } from 'vitest'
import { dockerEngine } from './engine.js'
import { never, ownContainers, request, testHost } from './helpers.js'
import { suiteSandboxes } from './suite.js'

describe.skipIf(!dockerEngine.available)('docker sandbox: warm pool', () => {
  const make = suiteSandboxes()

  it('start() warms the pool; a run takes a ready container, which is removed after the run', async () => {
    const sandbox = make({ poolSize: 2 })
    await sandbox.start()
    expect([await sandbox.warm(2), sandbox.poolStats.lastError]).toEqual([true, undefined])
    const before = await ownContainers()
    expect(before).toHaveLength(2)
    const out = await sandbox.run(request(`return require('node:os').hostname()`), testHost(), never())
    expect(sandbox.poolStats.hits).toBe(1)
    const used = out.ok ? (JSON.parse(out.valueJson ?? '""') as string) : ''
    expect(before.some((id) => id.startsWith(used))).toBe(true)
    await sandbox.warm(2)
    for (let i = 0; i < 40 && (await ownContainers()).some((id) => id.startsWith(used)); i++) await new Promise((r) => setTimeout(r, 100))
    const after = await ownContainers()
    expect(after.some((id) => id.startsWith(used))).toBe(false)
    expect(after).toHaveLength(2)
    await sandbox.close()
    expect(await ownContainers()).toEqual([])
  })

  it('idle warm containers are removed after the idle timeout, and the next run still works', async () => {
    const sandbox = make({ poolSize: 1, idleTimeoutMs: 300 })
    expect(await sandbox.warm(1)).toBe(true)
    expect(await ownContainers()).toHaveLength(1)
    for (let i = 0; i < 50 && (await ownContainers()).length > 0; i++) await new Promise((r) => setTimeout(r, 100))
    expect(await ownContainers()).toEqual([])
    expect(await sandbox.run(request(`return 2`), testHost(), never())).toMatchObject({ ok: true, valueJson: '2' })
    await sandbox.close()
  })

  it('a warm container killed from outside is never handed out: the next run is served by a live one', async () => {
    const sandbox = make({ poolSize: 1 })
    expect(await sandbox.warm(1)).toBe(true)
    const [pooled] = await ownContainers()
    if (pooled === undefined) throw new Error('no warm container')
    await new Docker().getContainer(pooled).kill()
    const out = await sandbox.run(request(`return require('node:os').hostname()`), testHost(), never())
    expect(out).toMatchObject({ ok: true })
    const served = out.ok ? (JSON.parse(out.valueJson ?? '""') as string) : ''
    expect(pooled.startsWith(served)).toBe(false)
    await sandbox.close()
    expect(await ownContainers()).toEqual([])
  })

  it('each run gets the memory it asks for; the pool warms for the last size asked', async () => {
    const sandbox = make({ poolSize: 1 })
    const memoryOf = async (memoryMb: number): Promise<number> => {
      const host = testHost()
      let memory = -1
      const answer = host.callTool.bind(host)
      host.callTool = async (name, argsJson) => {
        memory = (await new Docker().getContainer((JSON.parse(argsJson) as { id: string }).id).inspect()).HostConfig.Memory ?? -1
        return answer(name, argsJson)
      }
      await sandbox.run(request(`return tools.echo({ id: require('node:os').hostname() })`, { memoryMb }), host, never())
      return memory / 1024 / 1024
    }
    try {
      expect(await memoryOf(128)).toBe(128)
      expect(await memoryOf(200)).toBe(200)
      // The pool warms for the last size asked; on a loaded machine the first warm container may still be
      // starting when the run comes, and a busy engine can fail a start (the pool does not retry one by
      // itself: no hot loop on a dead engine), so the hit is looked for over three rounds (one must hit).
      let hit = false
      const failedStarts: string[] = []
      for (let round = 0; round < 3 && !hit; round++) {
        if (!(await sandbox.warm(1))) {
          failedStarts.push(sandbox.poolStats.lastError ?? 'no start in flight')
          continue
        }
        const hits = sandbox.poolStats.hits
        expect(await memoryOf(200)).toBe(200)
        hit = sandbox.poolStats.hits === hits + 1
      }
      expect(hit, `no run took a warm 200 MB container in 3 rounds; failed starts: ${failedStarts.join(' | ') || 'none'}`).toBe(true)
    } finally {
      await sandbox.close()
    }
  })

  it('close() during a run ends it as aborted and removes everything', async () => {
    const sandbox = make({ poolSize: 1 })
    await sandbox.warm(1)
    const running = sandbox.run(request(`await new Promise(() => {})`), testHost(), never())
    await new Promise((r) => setTimeout(r, 300))
    await sandbox.close()
    expect(await running).toMatchObject({ ok: false, error: { kind: 'aborted' } })
    expect(await ownContainers()).toEqual([])
    expect(await sandbox.run(request(`return 1`), testHost(), never())).toMatchObject({ ok: false, error: { kind: 'sandbox_unavailable' } })
  })

  it('close() during a run with no warm pool (nothing to remove yet while the run kills its container) returns', async () => {
    const sandbox = make({ poolSize: 0 })
    const running = sandbox.run(request(`await new Promise(() => {})`), testHost(), never())
    await new Promise((r) => setTimeout(r, 1500))
    await sandbox.close()
    expect(await running).toMatchObject({ ok: false, error: { kind: 'aborted' } })
    expect(await ownContainers()).toEqual([])
  })
})
