// Sessions through the runtime on the Docker backend, as a harness uses them: a conversation's state lives
// in the session's own container; when a run kills that container (the memory limit), the next run is
// restored by replay — the earlier programs run again with their recorded tool results (no tool runs twice)
// and their recorded entropy, so what they built (random ids, times, fetched rows) is the same — and
// closing the session removes its container. Under runc and gVisor (runsc).
import Docker from 'dockerode'
import { mkdtempSync } from 'node:fs'
import os, { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import { defineTool } from '../../vocabulary/define-tool.js'
import { dockerRuntimeCases } from './engine.js'
import { ensureImage, ownContainers } from './helpers.js'

/**
 * Running containers of this process named for a session: `codeact-session-<realm id>-<random>`, where the
 * runtime's realm id is `<caller>:<id>` (no caller here) reduced to what Docker allows in a name.
 */
async function liveSessionContainers(id: string): Promise<string[]> {
  const list = await new Docker().listContainers({ filters: { label: [`codeact.owner=${os.hostname()}:${process.pid}`] } })
  return list.filter((c) => c.Names.some((n) => n.startsWith('/codeact-session-') && n.includes(`-${id}-`))).map((c) => c.Id)
}

for (const runtime of dockerRuntimeCases) {
  describe.skipIf(runtime.skip !== undefined)(`docker sessions through the runtime (${runtime.name})`, () => {
    const executed: string[] = []
    const rowsTool = () =>
      defineTool({
        name: 'fetch_rows',
        description: 'Rows of a table (each fetch is recorded, so a test can tell a replay from a new call).',
        parameters: z.object({ table: z.string() }),
        execute: ({ table }) => {
          executed.push(`fetch_rows ${table}`)
          return [
            { id: 1, table, score: 0.5 },
            { id: 2, table, score: 0.75 },
          ]
        },
      })
    let rt: Runtime
    beforeAll(async () => {
      await ensureImage()
      rt = await createRuntime({
        sandbox: 'docker',
        docker: { ...runtime.option },
        typecheck: 'off',
        sessions: { memoryMb: 96 },
        tools: [rowsTool()],
      })
    }, 300_000)
    afterAll(async () => {
      await rt?.close()
      expect(await ownContainers()).toEqual([])
    })

    it('a memory kill is followed by a restore with no tool run again and the same state (random, uuid, time, rows)', async () => {
      const s = rt.session({ id: `restore-${runtime.name}` })
      const first = await s.runCode(`
        const rows = await tools.fetch_rows({ table: 'users' })
        const byId = new Map(rows.map((r) => [r.id, r]))
        const runId = crypto.randomUUID()
        const pick = Math.random()
        const startedAt = Date.now()
        const bytes = Array.from(crypto.getRandomValues(new Uint8Array(4)))
        return [byId.size, runId, pick, startedAt, bytes]`)
      expect(first.ok).toBe(true)
      expect(executed).toEqual(['fetch_rows users'])
      const [container] = await liveSessionContainers(s.id)
      expect(container).toBeDefined()

      const bomb = await s.runCode('const hog: string[] = []\nwhile (true) hog.push("x".repeat(1024) + hog.length)')
      expect(bomb.error?.kind).toBe('memory')

      const after = await s.runCode('return [byId.size, runId, pick, startedAt, bytes, byId.get(2)?.score]')
      expect(after.ok).toBe(true)
      expect(after.value).toEqual([...(first.value as unknown[]), 0.75])
      expect(after.observation).toMatch(/session was restored/)
      expect(executed).toEqual(['fetch_rows users']) // the replay answered from the log
      const now = await liveSessionContainers(s.id)
      expect(now).toHaveLength(1)
      expect(now[0]).not.toBe(container)
      await s.close()
    })

    it('a new runtime (a host restart) restores a session from the JSONL log into a new container, running no tool', async () => {
      const logFile = path.join(mkdtempSync(path.join(tmpdir(), 'codeact-docker-session-')), 'events.jsonl')
      const id = `restart-${runtime.name}`
      const options = { sandbox: 'docker' as const, docker: { ...runtime.option }, typecheck: 'off' as const, logFile }
      const before = await createRuntime({ ...options, tools: [rowsTool()] })
      const first = await before.session({ id }).runCode(`
        const rows = await tools.fetch_rows({ table: 'orders' })
        const token = crypto.randomUUID()
        return token`)
      expect(first.ok).toBe(true)
      await before.close() // its containers are gone; the log stays
      expect(await liveSessionContainers(id)).toEqual([])

      const after = await createRuntime({ ...options, tools: [rowsTool()] })
      try {
        const executedBefore = executed.length
        const next = await after.session({ id }).runCode('return [token, rows.length]')
        expect(next.value).toEqual([first.value, 2])
        expect(next.observation).toMatch(/session was restored/)
        expect(executed.length).toBe(executedBefore)
        expect(await liveSessionContainers(id)).toHaveLength(1)
      } finally {
        await after.close()
      }
    })

    it('past the cap of live realms, the least recently used session loses its container and restores on its next run', async () => {
      const capped = await createRuntime({
        sandbox: 'docker',
        docker: { ...runtime.option },
        typecheck: 'off',
        sessions: { max: 1 },
        tools: [rowsTool()],
      })
      try {
        const [a, b] = [capped.session({ id: `cap-a-${runtime.name}` }), capped.session({ id: `cap-b-${runtime.name}` })]
        await a.runCode(`const rows = await tools.fetch_rows({ table: 'a' })`)
        const [aContainer] = await liveSessionContainers(a.id)
        expect(aContainer).toBeDefined()
        await b.runCode('const mine = 2') // a second live realm: a's (the least recently used) is freed
        await expect(new Docker().getContainer(aContainer ?? '').inspect()).rejects.toMatchObject({ statusCode: 404 })
        const executedBefore = executed.length
        const back = await a.runCode('return rows.length')
        expect(back.value).toBe(2)
        expect(back.observation).toMatch(/session was restored/)
        expect(executed.length).toBe(executedBefore)
      } finally {
        await capped.close()
      }
    })

    it('two sessions with the same names in parallel keep their own values, each in its own container; close removes them', async () => {
      const a = rt.session()
      const b = rt.session()
      await Promise.all([a.runCode(`let owner = 'a'\nconst seen: string[] = []`), b.runCode(`let owner = 'b'\nconst seen: string[] = []`)])
      const [ra, rb] = await Promise.all([
        a.runCode(`seen.push(owner)\nreturn [owner, seen.length, require('node:os').hostname()]`),
        b.runCode(`seen.push(owner)\nreturn [owner, seen.length, require('node:os').hostname()]`),
      ])
      const [ownerA, countA, hostA] = ra.value as [string, number, string]
      const [ownerB, countB, hostB] = rb.value as [string, number, string]
      expect([ownerA, countA, ownerB, countB]).toEqual(['a', 1, 'b', 1])
      expect(hostA).not.toBe(hostB)
      const containers = [...(await liveSessionContainers(a.id)), ...(await liveSessionContainers(b.id))]
      expect(containers).toHaveLength(2)
      await Promise.all([a.close(), b.close()])
      for (const id of containers) await expect(new Docker().getContainer(id).inspect()).rejects.toMatchObject({ statusCode: 404 })
    })
  })
}
