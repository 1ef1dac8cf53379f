// After tsc (`npm run build`): the guest (guest/, everything that runs inside a sandbox's program realm)
// as four scripts in dist/guest-bundle/, each a single expression whose value is what its backend calls:
//   lockdown.js        isolate: run first in each fresh context (no value)
//   prelude.js         isolate: codeactPrelude, with the realm's standard globals installed
//   isolate-bridge.js  isolate: codeactGlue(prelude, send, log, timer, configJson) → control
//   container.js       container: codeactBridge(send, log, configJson, arm) → { start, deliver }
// sandbox/guest-source.ts reads them; the container's realm gets container.js from the host with `prepare`.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const outdir = join(root, 'dist', 'guest-bundle')
const ENTRIES = ['lockdown', 'prelude', 'isolate-bridge', 'container']

/**
 * One entry as a script whose completion value is the entry's default export.
 * @param {string} entry
 */
async function bundleGuest(entry) {
  const r = await build({
    entryPoints: [join(root, 'guest', 'entry', `${entry}.ts`)],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: '__codeactGuest',
    platform: 'neutral',
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'warning',
  })
  const code = r.outputFiles?.[0]?.text ?? ''
  return `(function () {\n'use strict';\n${code}return __codeactGuest.default;\n})()\n`
}

mkdirSync(outdir, { recursive: true })
for (const entry of ENTRIES) writeFileSync(join(outdir, `${entry}.js`), await bundleGuest(entry))
