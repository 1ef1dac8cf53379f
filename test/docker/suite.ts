/**
 * What Docker suites set up the same way: sandboxes closed after the suite (no container left behind), and
 * a runtime over a fresh workspace. Kept apart from helpers.ts, which the global setup imports too.
 */
import { afterAll, beforeAll, expect } from 'vitest'
import { createRuntime, type Runtime, type RuntimeOptions } from '../../runtime/create-runtime.js'
import { createDockerSandbox, type DockerSandbox, type DockerSandboxOptions } from '../../sandbox/docker/index.js'
import { ensureImage, ownContainers, tempWorkspace } from './helpers.js'

/** Builds the image first, and gives a maker of sandboxes (with `defaults`), all closed after the suite. */
export function suiteSandboxes(defaults: DockerSandboxOptions = {}): (o?: DockerSandboxOptions) => DockerSandbox {
  const sandboxes: DockerSandbox[] = []
  beforeAll(ensureImage)
  afterAll(async () => {
    await Promise.all(sandboxes.map((s) => s.close()))
    expect(await ownContainers()).toEqual([])
  })
  return (o = {}) => {
    const s = createDockerSandbox({ ...defaults, ...o })
    sandboxes.push(s)
    return s
  }
}

/** A runtime on the Docker backend (`option`: the OCI runtime's) over a fresh temporary workspace, check off. */
export async function workspaceRuntime(
  option: { runtime?: string },
  extra: Partial<RuntimeOptions>,
): Promise<{ rt: Runtime; root: string }> {
  await ensureImage()
  const root = tempWorkspace()
  const rt = await createRuntime({ sandbox: 'docker', docker: { ...option }, workspace: { root }, typecheck: 'off', ...extra })
  return { rt, root }
}
