// The image and the backend agree on how the runner starts (no engine needed).
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { containerUser, isGvisor, RUNNER_ARGS, RUNNER_NODE } from '../../sandbox/docker/spec.js'
import type { WorkspaceMount } from '../../sandbox/docker/mount.js'

const images = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../images')

function entrypoint(file: string): unknown {
  const line = fs
    .readFileSync(path.join(images, file), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('ENTRYPOINT '))
  return JSON.parse(line?.slice('ENTRYPOINT '.length) ?? 'null')
}

describe('runner image', () => {
  it("both Dockerfiles start the runner as sandbox/docker/spec.ts's gVisor entrypoint does, from the execute-only node", () => {
    expect(entrypoint('Dockerfile')).toEqual([RUNNER_NODE, ...RUNNER_ARGS])
    expect(entrypoint('Dockerfile.node')).toEqual([RUNNER_NODE, ...RUNNER_ARGS])
    expect([isGvisor('runsc'), isGvisor('runsc-debug'), isGvisor('gvisor'), isGvisor('runc'), isGvisor(undefined)]).toEqual([
      true,
      true,
      true,
      false,
      false,
    ])
  })

  it('the container user: an explicit choice, else the workspace owner when the caller is it or root, else the caller', () => {
    const mount = (uid: number, gid: number) => ({ owner: { uid, gid } }) as WorkspaceMount
    const root = { uid: 0, gid: 0 }
    const alice = { uid: 1000, gid: 1000 }
    expect(containerUser(undefined, undefined, root)).toBe('65534:65534')
    expect(containerUser(undefined, mount(0, 0), root)).toBe('0:0')
    expect(containerUser(undefined, mount(1000, 100), root)).toBe('1000:100')
    expect(containerUser(undefined, mount(1000, 100), alice)).toBe('1000:100')
    // Bob's folder, world-writable, run by Alice: the program is Alice, never Bob (nor root).
    expect(containerUser(undefined, mount(1001, 1001), alice)).toBe('1000:1000')
    expect(containerUser(undefined, mount(0, 0), alice)).toBe('1000:1000')
    expect(containerUser('5:5', mount(0, 0), root)).toBe('5:5')
  })
})
