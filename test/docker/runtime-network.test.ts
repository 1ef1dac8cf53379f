/** Through createRuntime: the workspace's network switch governs the container its `bash` runs in. */
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createRuntime } from '../../runtime/create-runtime.js'
import { dockerEngine } from './engine.js'
import { ensureImage } from './helpers.js'

describe.skipIf(!dockerEngine.available)('docker runtime: workspace network', () => {
  it.each([
    [false, ['lo']],
    [true, ['eth0', 'lo']],
  ])(
    'network %s: bash in the container sees %j',
    async (network, interfaces) => {
      await ensureImage()
      const root = mkdtempSync(join(tmpdir(), 'codeact-net-'))
      execFileSync('chown', ['65534:65534', root])
      const rt = await createRuntime({ sandbox: 'docker', typecheck: 'off', docker: { poolSize: 0 }, workspace: { root, network } })
      try {
        const r = await rt.runCode(`return (await tools.bash({ command: "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '" })).stdout`)
        expect(r.error, r.observation).toBeNull()
        expect(String(r.value).trim().split('\n').sort()).toEqual(interfaces)
      } finally {
        await rt.close()
      }
    },
    120_000,
  )
})
