/**
 * The contract at the Sandbox seam: every promise of `sandbox/types.ts` as a case, run against one backend
 * by `seamContract(name, options)` from that backend's test file. A case the backend does not offer (its
 * capabilities say so) is not registered and is listed as such; a case on its skip list is not registered
 * either, and one test checks that every skip names a real case and gives a reason, and prints them (CI
 * counts a vitest skip as a failure, so a skip is never `it.skip`).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Sandbox } from '../../../sandbox/types.js'
import type { SandboxCapabilities as Capabilities } from '../../../sandbox/types.js'
import { CASES } from './cases.js'
import type { SeamContext } from './context.js'

export interface SeamOptions {
  /** The backend, mounting `workspace` where it mounts one (its program's working folder). */
  make(workspace: string): Sandbox
  /** The same backend set up so that it cannot start. */
  unstartable(): Sandbox
  /** What the backend declares (`sandbox.capabilities`, which must agree where the backend has it). */
  capabilities: Capabilities
  /** Case name → why this backend does not keep that promise (`bug: …` for a break to be fixed). */
  skip?: Readonly<Record<string, string>>
  /** Runs once before the suite (build an image). */
  setup?(): Promise<void>
  /** Makes the workspace the backend's user's own (a container runs as an unprivileged uid). */
  prepareWorkspace?(dir: string): void
}

/** The suite's context for `options`' backend (its workspace made, the backend started) and how to end it. */
export async function openContext(options: Omit<SeamOptions, 'skip'>, name: string): Promise<{ ctx: SeamContext; close(): Promise<void> }> {
  const made: Sandbox[] = []
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), `codeact-seam-${name}-`))
  fs.mkdirSync(path.join(workspace, 'locked'))
  options.prepareWorkspace?.(workspace)
  const make = (): Sandbox => {
    const sandbox = options.make(workspace)
    made.push(sandbox)
    return sandbox
  }
  const ctx: SeamContext = { make, unstartable: options.unstartable, workspace, capabilities: options.capabilities, sandbox: make() }
  await ctx.sandbox.start()
  return {
    ctx,
    async close() {
      for (const sandbox of made) await sandbox.close()
      fs.rmSync(workspace, { recursive: true, force: true })
    },
  }
}

export function seamContract(name: string, options: SeamOptions): void {
  const skip = options.skip ?? {}
  const offered = CASES.filter((c) => c.offered?.(options.capabilities) ?? true)
  describe(`seam contract: ${name}`, () => {
    const ctx = {} as SeamContext
    let close = async () => {}
    beforeAll(async () => {
      await options.setup?.()
      const opened = await openContext(options, name)
      Object.assign(ctx, opened.ctx)
      close = opened.close
    }, 300_000)
    afterAll(() => close())

    it('declares its capabilities; its skip list names real cases, each with a reason', () => {
      expect(ctx.sandbox.capabilities).toEqual(options.capabilities)
      for (const [what, reason] of Object.entries(skip)) {
        expect(
          CASES.map((c) => c.name),
          `the skip list names no case "${what}"`,
        ).toContain(what)
        expect(reason.trim(), `the skip of "${what}" gives no reason`).not.toBe('')
        console.info(`[seam ${name}] skipped: ${what} — ${reason}`)
      }
      for (const c of CASES) if (!offered.includes(c)) console.info(`[seam ${name}] not offered: ${c.name}`)
    })

    for (const c of offered) {
      if (c.name in skip) continue
      it(c.name, async () => expect(await c.check(ctx)).toEqual([]), 300_000)
    }
  })
}
