// After tsc (`npm run build`): the guest (guest/, everything that runs inside a sandbox's program realm)
// as four scripts in dist/guest-bundle/, each a single expression whose value is what its backend calls:
//   lockdown.js        isolate: run first in each fresh context (no value)
//   prelude.js         isolate: codeactPrelude, with the realm's standard globals installed
//   isolate-bridge.js  isolate: codeactGlue(prelude, send, log, timer, configJson) → control
//   container.js       container: codeactBridge(send, log, configJson, arm) → { start, deliver }
// sandbox/guest-source.ts reads them; the container's realm gets container.js from the host with `prepare`.
//
// `webidl-conversions` (a dependency of whatwg-url) is replaced by guest/url-conversions.ts: it reads
// SharedArrayBuffer.prototype as it loads, which the lockdown removes. TextEncoder/TextDecoder are the
// guest's own (guest/text.ts), injected where whatwg-url reads the globals. tr46's IDNA mapping table is
// loaded as JSON text parsed on first use: a string literal costs the parser a scan, an array literal of
// ~9,000 entries a parse in every isolate that compiles the prelude.
import { mkdirSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const outdir = join(root, 'dist', 'guest-bundle')
const ENTRIES = ['lockdown', 'prelude', 'isolate-bridge', 'container']

const guestPlugin = {
  name: 'codeact-guest',
  setup(b) {
    b.onResolve({ filter: /^webidl-conversions$/ }, () => ({ path: join(root, 'guest', 'url-conversions.ts') }))
    b.onLoad({ filter: /[\\/]tr46[\\/]lib[\\/]mappingTable\.json$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8')
      return { contents: `module.exports = JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(text)))})`, loader: 'js' }
    })
  },
}

/** One entry as a script whose completion value is the entry's default export. */
export async function bundleGuest(entry) {
  const r = await build({
    entryPoints: [join(root, 'guest', 'entry', `${entry}.ts`)],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: '__codeactGuest',
    platform: 'neutral',
    mainFields: ['main', 'module'],
    target: 'es2022',
    // Only where whatwg-url is bundled: an injected file is part of every bundle it is given to.
    inject: entry === 'prelude' || entry === 'container' ? [join(root, 'guest', 'text.ts')] : [],
    plugins: [guestPlugin],
    legalComments: 'none',
    logLevel: 'warning',
  })
  const code = r.outputFiles[0].text
  return `(function () {\n'use strict';\n${code}return __codeactGuest.default;\n})()\n`
}

mkdirSync(outdir, { recursive: true })
for (const entry of ENTRIES) writeFileSync(join(outdir, `${entry}.js`), await bundleGuest(entry))
