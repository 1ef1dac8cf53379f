/**
 * Is isolated-vm usable on this Node line? Looked at from the host before any child starts, so a broken
 * install is one line at `createRuntime` naming the fix, not the cut-off tail of a child's stack on every
 * run. Three ways it breaks: not installed; a version with no binary for this line (pnpm, yarn and Bun
 * take the highest version the range allows, whatever its `engines`, where npm picks by `engines`); the
 * right version, never built (install scripts blocked: pnpm's default, Bun, `--ignore-scripts`).
 * Only files are read: the native module itself is loaded by the child alone.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { buildCommand, detectPackageManager, pinCommand } from '../package-manager.js'

/** The isolated-vm for each Node line (package.json allows exactly these). */
export function isolatedVmFor(line: number): string {
  return line >= 24 ? '7.0.2' : line >= 22 ? '6.2.0' : '5.0.4'
}

let checked: string | undefined | null = null

/** One line saying why the isolate backend cannot start here, with the fix; undefined when it can. */
export function isolatedVmProblem(): string | undefined {
  if (checked === null) checked = inspect()
  return checked
}

function inspect(): string | undefined {
  const require = createRequire(import.meta.url)
  let manifestPath: string
  try {
    manifestPath = realpathSync(require.resolve('isolated-vm/package.json'))
  } catch {
    const manager = detectPackageManager()
    return `isolated-vm (the isolate sandbox's engine) is not installed: run \`${manager} install\``
  }
  const dir = dirname(manifestPath)
  const manager = detectPackageManager(dir)
  const { version } = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version: string }
  const line = Number(process.versions.node.split('.')[0])
  const wanted = isolatedVmFor(line)
  const major = (v: string) => v.split('.')[0]
  if (nativeBuilt(dir, Number(major(version)))) return undefined
  if (major(version) !== major(wanted)) {
    return `isolated-vm ${version} has no build for Node ${line} (it needs ${wanted}): ${pinCommand(manager, 'isolated-vm', wanted)}`
  }
  return `isolated-vm's native module was not built (its install script was blocked or failed): run \`${buildCommand(manager, 'isolated-vm')}\``
}

/** 5.x builds into out/; 6.x and 7.x ship prebuilt binaries that node-gyp-build finds for this Node. */
function nativeBuilt(dir: string, major: number): boolean {
  if (major < 6) return existsSync(join(dir, 'out', 'isolated_vm.node'))
  try {
    const gypBuild = createRequire(join(dir, 'package.json'))('node-gyp-build') as { path(dir: string): string }
    return existsSync(gypBuild.path(dir))
  } catch {
    return false
  }
}
