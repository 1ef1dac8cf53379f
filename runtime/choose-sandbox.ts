/** The sandbox a runtime runs programs in: one given, Docker when asked (its client loaded then), else the isolate. */
import { dockerClientMissing } from '../sandbox/docker/client.js'
import { createIsolateSandbox } from '../sandbox/isolate/index.js'
import { isolatedVmProblem } from '../sandbox/isolate/native.js'
import { DependencyError } from '../sandbox/package-manager.js'
import type { IsolateSandboxOptions } from '../sandbox/isolate/index.js'
import type { Sandbox } from '../sandbox/types.js'

/** The parts of createRuntime's options that choose the sandbox. */
type SandboxChoice = {
  sandbox?: 'isolate' | 'docker' | Sandbox | undefined
  isolate?: IsolateSandboxOptions | undefined
  docker?: Record<string, unknown> | undefined
  approve?: unknown
}

export async function chooseSandbox(
  options: SandboxChoice,
  workspace: { root: string; readOnly: string[]; network: boolean } | undefined,
): Promise<Sandbox> {
  if (typeof options.sandbox === 'object') return options.sandbox
  if (options.sandbox === 'docker') {
    // Loaded only when asked for: the embedded default never pulls in the Docker client (an optional peer).
    const missing = dockerClientMissing()
    if (missing) throw new DependencyError(missing)
    const { createDockerSandbox } = await import('../sandbox/docker/index.js')
    // The workspace's network switch governs the container too (its `bash` runs there), unless the Docker
    // options say otherwise.
    const fromWorkspace = workspace ? { workspace: { root: workspace.root, readOnly: workspace.readOnly }, network: workspace.network } : {}
    // Approvals gate tool calls: with them on, the program's own container gets the workspace read-only, so
    // it cannot change unasked what a person is asked about (sandbox/docker/options.ts, programWorkspace).
    const asked = options.approve ? { programWorkspace: 'read-only' as const } : {}
    return createDockerSandbox({
      ...fromWorkspace,
      ...options.docker,
      ...asked,
      ...(workspace ? { workspace: fromWorkspace.workspace } : {}),
    })
  }
  const problem = isolatedVmProblem()
  if (problem) throw new DependencyError(problem)
  return createIsolateSandbox(options.isolate)
}

const CAPABILITIES = ['nodeModules', 'effectsOnlyThroughHost', 'programWrites', 'sessions', 'stagesItself'] as const

/** A Sandbox built outside codeact must say what it offers: the runtime reads nothing else of it. */
export function checkedCapabilities(sandbox: Sandbox): Sandbox {
  const declared = (sandbox as { capabilities?: unknown }).capabilities as Record<string, unknown> | undefined
  const missing = CAPABILITIES.filter((c) => typeof declared?.[c] !== 'boolean')
  if (missing.length)
    throw new TypeError(
      `codeact: the sandbox "${sandbox.name}" must declare capabilities.${missing.join(', ')} (true or false; sandbox/types.ts)`,
    )
  if (sandbox.capabilities.sessions && !sandbox.endSession)
    throw new TypeError(`codeact: the sandbox "${sandbox.name}" declares sessions but has no endSession`)
  if (sandbox.capabilities.stagesItself && !sandbox.stageRun)
    throw new TypeError(`codeact: the sandbox "${sandbox.name}" declares stagesItself but has no stageRun`)
  return sandbox
}
