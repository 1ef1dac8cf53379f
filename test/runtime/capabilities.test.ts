/**
 * The runtime asks a backend's capabilities, never its name. A Sandbox built outside codeact (here: a thin
 * wrapper over the real isolate backend, named like no built-in backend) gets exactly the behaviour its
 * declaration asks for:
 * - `nodeModules: true`: a program that imports Node's modules passes the check and reaches the sandbox;
 *   `false`: it is stopped before anything runs.
 * - `effectsOnlyThroughHost: true`: the program starts while its check goes on; `false`: it is never
 *   started before the verdict, so a program with a type error is never started at all.
 * - `sessions: false`: a session run answers `sandbox_unavailable` before anything runs.
 * A sandbox that declares nothing, or declares what it does not implement, is refused at createRuntime.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createRuntime } from '../../runtime/create-runtime.js'
import { verdictTiming } from '../../runtime/typecheck.js'
import { createIsolateSandbox } from '../../sandbox/isolate/index.js'
import type { Sandbox, SandboxCapabilities } from '../../sandbox/types.js'
import { testRuntime } from '../support/runtime.js'

afterEach(() => {
  verdictTiming.delayMs = undefined
})

const ISOLATE: SandboxCapabilities = {
  nodeModules: false,
  effectsOnlyThroughHost: true,
  programWrites: false,
  sessions: true,
  stagesItself: false,
}

/** The isolate backend under another name, declaring `declared`; counts the programs it was asked to run. */
function customSandbox(declared: Partial<SandboxCapabilities>): Sandbox & { started: number } {
  const inner = createIsolateSandbox()
  const sandbox = {
    name: 'custom',
    capabilities: { ...ISOLATE, ...declared },
    started: 0,
    start: () => inner.start(),
    run: (...args: Parameters<Sandbox['run']>) => {
      sandbox.started++
      return inner.run(...args)
    },
    endSession: (id: string) => inner.endSession(id),
    close: () => inner.close(),
  }
  return sandbox
}

const NODE_PROGRAM = "import { join } from 'node:path'\nreturn join('a', 'b')"
/** A type error after a statement the program reaches at once; its verdict is held back (verdictTiming). */
const TYPE_ERROR = "console.log('started')\nconst n = 1\nn.toFixedd()"

describe('nodeModules', () => {
  it('declared true: a program importing node:path passes the check and is handed to the sandbox', async () => {
    const sandbox = customSandbox({ nodeModules: true })
    const rt = await testRuntime({ sandbox, typecheck: 'error' })
    const r = await rt.runCode(NODE_PROGRAM)
    // The isolate has no Node, so the program fails where it runs: past the check and the compile.
    expect(['compile', 'type'], r.observation).not.toContain(r.error?.kind)
    expect(sandbox.started).toBe(1)
  })

  it('declared false: the same program is stopped before anything runs, saying why', async () => {
    const sandbox = customSandbox({ nodeModules: false })
    const rt = await testRuntime({ sandbox, typecheck: 'error' })
    const r = await rt.runCode(NODE_PROGRAM)
    expect(['compile', 'type'], r.observation).toContain(r.error?.kind)
    expect(r.error?.message).toMatch(/node/i)
    expect(sandbox.started).toBe(0)
  })
})

describe('effectsOnlyThroughHost', () => {
  it('declared false: a program whose verdict comes late is never started; the result is the type error', async () => {
    verdictTiming.delayMs = 400
    const sandbox = customSandbox({ effectsOnlyThroughHost: false })
    const rt = await testRuntime({ sandbox, typecheck: 'error' })
    const r = await rt.runCode(TYPE_ERROR)
    expect(r.error?.kind).toBe('type')
    expect(sandbox.started).toBe(0)
    expect(r.logs).toEqual([])
  })

  it('declared true: the same program starts before its verdict, and nothing it did reaches the result', async () => {
    verdictTiming.delayMs = 400
    const sandbox = customSandbox({ effectsOnlyThroughHost: true })
    const rt = await testRuntime({ sandbox, typecheck: 'error' })
    const r = await rt.runCode(TYPE_ERROR)
    expect(r.error?.kind).toBe('type')
    expect(sandbox.started).toBe(1)
    expect(r.logs).toEqual([])
  })
})

describe('sessions', () => {
  it('declared false: a session run answers sandbox_unavailable and nothing runs', async () => {
    const sandbox = customSandbox({ sessions: false })
    const rt = await testRuntime({ sandbox })
    const r = await rt.session().runCode('return 1')
    expect(r.error?.kind).toBe('sandbox_unavailable')
    expect(r.error?.message).toMatch(/does not serve sessions/)
    expect(sandbox.started).toBe(0)
    expect((await rt.runCode('return 2')).value).toBe(2)
  })
})

describe('a declaration the runtime cannot trust is refused at createRuntime', () => {
  it('no capabilities at all', async () => {
    const { capabilities: _none, ...bare } = customSandbox({})
    await expect(createRuntime({ sandbox: bare as unknown as Sandbox })).rejects.toThrow(/must declare capabilities\.nodeModules/)
    await bare.close()
  })

  it('sessions without endSession, staging without stageRun', async () => {
    const noEnd = { ...customSandbox({ sessions: true }), endSession: undefined }
    await expect(createRuntime({ sandbox: noEnd })).rejects.toThrow(/declares sessions but has no endSession/)
    await noEnd.close()
    const noStage = customSandbox({ stagesItself: true })
    await expect(createRuntime({ sandbox: noStage })).rejects.toThrow(/declares stagesItself but has no stageRun/)
    await noStage.close()
  })
})
