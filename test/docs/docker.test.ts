/**
 * The Docker pages' examples on a real engine: the shell blocks marked `<!-- run: docker -->` run as written
 * in a scratch project, and the Docker session snippet runs as a process of its own and prints what
 * docs/docker.md says. Skipped, with the reason, where no engine answers (CI has one: a skip fails there).
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage, ownContainers } from '../docker/helpers.js'
import { allBlocks, extractSnippets, root, runShell } from './markdown.js'

describe.skipIf(!dockerEngine.available)('the Docker examples of the documentation', () => {
  beforeAll(async () => {
    await ensureImage()
  }, 600_000)
  afterAll(async () => {
    expect(await ownContainers()).toEqual([])
  })

  it('the shell blocks marked run: docker pass as written', () => {
    const runs = allBlocks().filter((b) => b.marker === 'run: docker')
    expect(runs.length).toBeGreaterThan(0)
    for (const block of runs) {
      const r = runShell(block)
      expect(r.status, `${block.file}:${block.line}\n${r.stdout}\n${r.stderr}`).toBe(0)
    }
  }, 300_000)

  it('docs/docker.md: a session keeps its Map between runs in its own container, removed on close', () => {
    const file = extractSnippets().get('docker-session')!
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'run-ts.mjs'), file], { cwd: root, encoding: 'utf8', timeout: 180_000 })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout.trim()).toBe("[ 'a', 'b' ]")
  }, 200_000)

  it('docs/minimal-mode.md: the shell keeps cwd and functions in its container; vendor/ is read-only', () => {
    const file = extractSnippets().get('minimal-docker')!
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'run-ts.mjs'), file], { cwd: root, encoding: 'utf8', timeout: 180_000 })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toBe('hi from /workspace/src\n\none\n\ntrue\n')
  }, 200_000)
})
