/**
 * The program corpus (issue 11): programs written the way strong models write them, run through a real
 * runtime (createRuntime, a real isolate, the type check in its thread) against an SDK of the 89 recorded MCP
 * tools, hand-registered tools and the workspace tools. Valid → the right value, nothing blocking; a
 * mistake → stopped before any tool call, with one message that names the fix.
 *
 * Each file in cases/ is one idiom family, exporting `cases: ProgramCase[]`; add a file or a case to grow it.
 * Families that export `docker = true` (program shape, rendering) also run on the Docker backend.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime, type RuntimeOptions } from '../../runtime/create-runtime.js'
import type { RunResult } from '../../vocabulary/types.js'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'
import type { ProgramCase } from './case.js'
import { corpusTools, corpusWorkspace } from './tools.js'

const dir = fileURLToPath(new URL('./cases', import.meta.url))
const families: { family: string; cases: ProgramCase[]; docker: boolean }[] = []
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .sort()) {
  const mod = (await import(`./cases/${file}`)) as { cases: ProgramCase[]; docker?: boolean }
  families.push({ family: file.replace(/\.ts$/, ''), cases: mod.cases, docker: mod.docker === true })
}

function checkCase(c: ProgramCase, r: RunResult): void {
  const { expect: want } = c
  if (want.stopped) {
    expect(r.error?.kind, r.observation).toBe(want.stopped.kind)
    expect(r.error?.message).toMatch(want.stopped.message)
    if (want.stopped.line !== undefined) expect(r.error?.message).toMatch(new RegExp(`(^|\\n)(line )?${want.stopped.line}:`))
    expect(r.calls, 'stopped before any tool call').toEqual([])
    return
  }
  if (want.failed) {
    expect(r.ok, r.observation).toBe(false)
    expect(r.observation).toMatch(want.failed)
  } else {
    expect(r.error, r.observation).toBeNull()
    if ('value' in want) expect(r.value).toEqual(want.value)
  }
  if (want.logs) {
    const lines = r.logs.map((l) => l.text)
    let at = 0
    for (const wanted of want.logs) {
      const found = lines.findIndex((l, i) => i >= at && l.includes(wanted))
      expect(found, `console line "${wanted}" in ${JSON.stringify(lines)}`).toBeGreaterThanOrEqual(0)
      at = found + 1
    }
  }
  if (want.note) expect(r.observation).toMatch(want.note)
  if (want.calls) expect(r.calls.map((call) => call.name)).toEqual(want.calls)
}

function corpus(
  backend: string,
  options: Partial<RuntimeOptions>,
  only: (f: (typeof families)[number]) => boolean,
  setup?: (root: string) => Promise<void> | void,
) {
  for (const { family, cases } of families.filter(only)) {
    describe(`corpus (${backend}): ${family}`, () => {
      let rt: Runtime
      beforeAll(async () => {
        const root = corpusWorkspace()
        await setup?.(root)
        rt = await createRuntime({ tools: corpusTools(), workspace: { root }, typecheck: 'error', ...options })
      })
      afterAll(async () => {
        await rt?.close()
      })
      it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
        checkCase(c, await rt.runCode(c.code))
      })
    })
  }
}

it('holds at least 80 programs', () => {
  expect(families.reduce((n, f) => n + f.cases.length, 0)).toBeGreaterThanOrEqual(80)
})

corpus('isolate', {}, () => true)

describe.skipIf(!dockerEngine.available)('docker', () => {
  corpus(
    'docker',
    { sandbox: 'docker' },
    (f) => f.docker,
    async (root) => {
      await ensureImage()
      // The container runs as the workspace's owner: give it one, as a user's files would be theirs.
      execFileSync('chown', ['-R', '65534:65534', root])
    },
  )
})
