/**
 * The container runner as one file: esbuild bundles sandbox/docker/runner/main.ts — and the host modules it
 * imports (the walk beneath the root, the wire's messages, the denial table) — into one ES module that
 * images/build.sh puts in the image as /opt/codeact/runner.mjs. The image's hash label is this text's hash,
 * so a stale image is told from a current one (test/docker/helpers.ts computes it the same way).
 *
 *   node dist/sandbox/docker/runner-bundle.js OUT.mjs     (what images/build.sh runs; prints the hash)
 *
 * Every module but the runner's instrument gets the fs and child_process functions as they were when the
 * runner loaded: the instrument later wraps the live modules (and syncs their named exports) to observe the
 * program's own calls, and an op's refusal is the tool's result, never a denial of the program.
 */
import { build, type Plugin } from 'esbuild'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire, isBuiltin } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
/** The package root, from the source (sandbox/docker) or the build (dist/sandbox/docker). */
const root = [resolve(here, '../..'), resolve(here, '../../..')].find((r) => existsSync(join(r, 'package.json'))) ?? resolve(here, '../..')
const CAPTURED = /^(node:)?(fs|fs\/promises|child_process)$/
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/
/** The one module that wraps the live built-ins (from the source, or from dist/ in an installed package). */
const INSTRUMENT = /[\\/]runner[\\/]instrument\.(ts|js)$/
const requireBuiltin = createRequire(import.meta.url)

/** A module exporting a copy of a built-in's functions, taken when the runner loads. */
function capturedModule(name: string): string {
  const names = Object.keys(requireBuiltin(`node:${name}`) as object).filter((n) => IDENTIFIER.test(n) && n !== 'default')
  return [
    `import * as live from 'node:${name}'`,
    'const copy = { ...live }',
    'export default { ...live.default }',
    `export const { ${names.join(', ')} } = copy`,
  ].join('\n')
}

const captureBuiltins: Plugin = {
  name: 'captured-builtins',
  setup(b) {
    b.onResolve({ filter: CAPTURED }, (args) => {
      if (args.namespace === 'captured' || INSTRUMENT.test(args.importer)) return undefined
      return { path: args.path.replace(/^node:/, ''), namespace: 'captured' }
    })
    b.onLoad({ filter: /.*/, namespace: 'captured' }, (args) => ({ contents: capturedModule(args.path), loader: 'js' }))
  },
}

/** The image has Node and nothing else: a package reached from the runner is a host module to split. */
const SPLIT_IT = "split the host module so the runner's part stands alone"
const builtinsOnly: Plugin = {
  name: 'builtins-only',
  setup(b) {
    b.onResolve({ filter: /^[^./#]/ }, (args) =>
      isBuiltin(args.path)
        ? { path: args.path, external: true }
        : { errors: [{ text: `the runner reaches the package "${args.path}" (from ${args.importer}): ${SPLIT_IT}` }] },
    )
  },
}

/** The bundled runner's text. */
export async function bundleRunner(): Promise<string> {
  const entry = join(root, 'sandbox/docker/runner/main.ts')
  const result = await build({
    entryPoints: [existsSync(entry) ? entry : join(root, 'dist/sandbox/docker/runner/main.js')],
    absWorkingDir: root,
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [captureBuiltins, builtinsOnly],
  })
  const file = result.outputFiles[0]
  if (file === undefined) throw new Error('esbuild produced no runner')
  return file.text
}

/** The image's `codeact.runner.hash`: the bundled runner, then the Dockerfile (its entrypoint's flags). */
export function runnerHash(bundle: string, dockerfile: string): string {
  return createHash('sha256').update(bundle).update(dockerfile).digest('hex').slice(0, 16)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const out = process.argv[2]
  if (out === undefined) {
    console.error('usage: node dist/sandbox/docker/runner-bundle.js OUT.mjs')
    process.exit(2)
  }
  const text = await bundleRunner()
  writeFileSync(out, text)
  console.log(runnerHash(text, readFileSync(join(root, 'images/Dockerfile'), 'utf8')))
}
