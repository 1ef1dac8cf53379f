/**
 * The Docker engine goes away in the middle of a run and comes back. The engine is reached through a
 * socket proxy this test owns, so "stopping the engine" cuts every connection the runtime has to it
 * (exactly what the client sees when dockerd stops) without disturbing other suites that share dockerd.
 * After the fault: the caller gets a typed outcome, every tool/call has its tool/result, the next run
 * works once the engine is back, and nothing of the runtime is left running.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createConnection, createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createRuntime } from '../../runtime/index.js'
import { unansweredCalls } from '../security/log-invariants.js'

class EngineProxy {
  #server: Server | undefined
  #sockets = new Set<Socket>()
  constructor(readonly path: string) {}

  async start(): Promise<void> {
    rmSync(this.path, { force: true })
    this.#server = createServer((client) => {
      const engine = createConnection('/var/run/docker.sock')
      for (const s of [client, engine]) {
        this.#sockets.add(s)
        s.on('close', () => this.#sockets.delete(s))
        s.on('error', () => s.destroy())
      }
      client.pipe(engine).pipe(client)
    })
    await new Promise<void>((resolve) => this.#server!.listen(this.path, resolve))
  }

  /** The engine "stops": no new connections, and every open one is cut. */
  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#server?.close(() => resolve())
      for (const s of this.#sockets) s.destroy()
    })
  }
}

/** This process's containers, from one listing (an inspect per id raced other suites' containers going away). */
function containersOf(pid: number): string[] {
  const out = execFileSync('docker', ['ps', '-a', '--filter', 'label=codeact', '--format', '{{.ID}} {{.Label "codeact.owner"}}'], {
    encoding: 'utf8',
  })
  return out
    .split('\n')
    .map((line) => line.trim().split(' '))
    .filter(([id, owner]) => id && owner?.endsWith(`:${pid}`))
    .map(([id]) => id as string)
}

describe.skipIf(process.env['CODEACT_DOCKER'] !== '1')('docker faults: the engine stops mid-run and comes back', () => {
  it('ends the run with a typed outcome, answers every call, and works again once the engine is back', async () => {
    const proxy = new EngineProxy(join(mkdtempSync(join(tmpdir(), 'codeact-engine-')), 'docker.sock'))
    await proxy.start()
    let release: () => void = () => {}
    const rt = await createRuntime({
      sandbox: 'docker',
      typecheck: 'off',
      docker: { poolSize: 1, engine: { socketPath: proxy.path } },
      tools: [
        { name: 'echo', description: 'e', parameters: { type: 'object' }, execute: (a: unknown) => a },
        {
          name: 'wait',
          description: 'w',
          parameters: { type: 'object' },
          execute: () => new Promise<string>((r) => (release = () => r('released'))),
        },
      ],
    })
    try {
      expect((await rt.runCode('return await tools.echo({ warm: true })')).value).toEqual({ warm: true })
      const running = rt.runCode('await tools.echo({ first: true })\nreturn await tools.wait({})', { limits: { timeoutMs: 30_000 } })
      // Stop the engine once the program is waiting on its second call.
      await new Promise<void>((resolve) => {
        const stop = rt.on('event', (e) => {
          if (e.type === 'tool/call' && (e.data as { name: string }).name === 'wait') {
            stop()
            resolve()
          }
        })
      })
      await proxy.stop()
      release()
      const broken = await running
      expect(broken.ok).toBe(false)
      expect(broken.error?.kind).toBe('sandbox_unavailable')
      expect(broken.error?.message).toMatch(/lost the connection to the Docker engine/)
      expect(unansweredCalls(rt.log.all())).toEqual([])

      // While the engine is away, a run is refused as infrastructure, not as the program's fault.
      const away = await rt.runCode('return 1')
      expect(away.error?.kind).toBe('sandbox_unavailable')

      await proxy.start()
      const next = await rt.runCode('return await tools.echo({ back: true })')
      expect(next.error, next.observation).toBeNull()
      expect(next.value).toEqual({ back: true })
    } finally {
      await rt.close()
      await proxy.stop()
    }
    // The container of the broken run is gone too: close() (or the reaper) removed it once the engine was back.
    expect(containersOf(process.pid)).toEqual([])
  }, 180_000)
})
