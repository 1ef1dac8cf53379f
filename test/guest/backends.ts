/**
 * The guest's own tests run inside real sandboxes: an isolate (the default backend) and a container under
 * runc (skipped, with the engine's reason, where no Docker engine answers). Each suite gets one started
 * sandbox per backend, closed after it.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest'
import { createDockerSandbox } from '../../sandbox/docker/index.js'
import { createIsolateSandbox } from '../../sandbox/isolate/index.js'
import type { Sandbox, SandboxEntropy, SandboxRunRequest } from '../../sandbox/types.js'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage, ownContainers } from '../docker/helpers.js'
import { programJs, RecordingHost } from '../sandbox/fixtures/isolate-host.js'

export interface Backend {
  name: string
  skip: string | undefined
  make(): Promise<Sandbox>
}

export const BACKENDS: Backend[] = [
  { name: 'isolate', skip: undefined, make: async () => createIsolateSandbox() },
  {
    name: 'container (runc)',
    skip: dockerEngine.available ? undefined : `no Docker engine: ${dockerEngine.reason ?? 'unknown'}`,
    make: async () => {
      await ensureImage()
      return createDockerSandbox({ poolSize: 1, runtime: 'runc' })
    },
  },
]

/** `body` in a fresh sandbox of each backend: `run(body)` answers the program's return value, parsed. */
export function eachBackend(title: string, suite: (run: GuestRunner, backend: Backend, sandbox: () => Sandbox) => void): void {
  for (const backend of BACKENDS) {
    describe.skipIf(backend.skip !== undefined)(`${title} — ${backend.name}`, () => {
      let sandbox: Sandbox
      beforeAll(async () => {
        sandbox = await backend.make()
        await sandbox.start()
      })
      afterAll(async () => {
        await sandbox.close()
        if (backend.name !== 'isolate') expect(await ownContainers()).toEqual([])
      })
      suite(
        guestRunner(() => sandbox),
        backend,
        () => sandbox,
      )
    })
  }
}

export interface GuestRun {
  value: unknown
  logs: string[]
  clock?: number[]
}
export type GuestRunner = (
  body: string,
  options?: { session?: SandboxRunRequest['session']; entropy?: SandboxEntropy },
) => Promise<GuestRun>

let runs = 0
function guestRunner(sandbox: () => Sandbox): GuestRunner {
  return async (body, options = {}) => {
    const host = new RecordingHost()
    const request: SandboxRunRequest = {
      runId: `guest-${++runs}`,
      js: programJs(body),
      toolNames: ['echo'],
      limits: { timeoutMs: 20_000, memoryMb: 128, maxOutputBytes: 1 << 20 },
      ...options,
    }
    const out = await sandbox().run(request, host, new AbortController().signal)
    if (!out.ok) throw new Error(`the run failed: ${JSON.stringify(out.error)}`)
    return {
      value: out.valueJson === undefined ? undefined : JSON.parse(out.valueJson),
      logs: host.logs.map((l) => l.text),
      ...(out.clock ? { clock: out.clock } : {}),
    }
  }
}
