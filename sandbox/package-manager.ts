/**
 * Which package manager installed codeact, so that a missing or unbuilt dependency is said with the
 * command that fixes it in that manager's words. Asked in order: the manager running us (its
 * `npm_config_user_agent`, set by `npm exec`/`pnpm exec`/`yarn`/`bun run`), the layout of node_modules
 * (pnpm's `.pnpm` store), then the lockfile of the nearest project folder.
 */
import { existsSync } from 'node:fs'
import { dirname, join, sep } from 'node:path'

export type PackageManager = 'npm' | 'pnpm' | 'yarn' | 'bun'

const LOCKFILES: [string, PackageManager][] = [
  ['pnpm-lock.yaml', 'pnpm'],
  ['bun.lock', 'bun'],
  ['bun.lockb', 'bun'],
  ['yarn.lock', 'yarn'],
  ['package-lock.json', 'npm'],
]

export function detectPackageManager(installedAt?: string, env = process.env, cwd = process.cwd()): PackageManager {
  const agent = /^(npm|pnpm|yarn|bun)\//.exec(env['npm_config_user_agent'] ?? '')?.[1]
  if (agent) return agent as PackageManager
  if (installedAt?.includes(`${sep}node_modules${sep}.pnpm${sep}`)) return 'pnpm'
  for (let dir = cwd; ; dir = dirname(dir)) {
    for (const [file, manager] of LOCKFILES) if (existsSync(join(dir, file))) return manager
    if (dirname(dir) === dir) return 'npm'
  }
}

/** The command that adds a package to the user's project. */
export function addCommand(manager: PackageManager, spec: string): string {
  return manager === 'npm' ? `npm install ${spec}` : `${manager} add ${spec}`
}

/** The command that runs a dependency's blocked build (its install script). */
export function buildCommand(manager: PackageManager, name: string): string {
  switch (manager) {
    case 'pnpm':
      return `pnpm approve-builds` // asks which to allow, then builds them
    case 'bun':
      return `bun pm trust ${name}`
    case 'yarn':
      return `yarn rebuild ${name}`
    default:
      return `npm rebuild ${name}`
  }
}

/** How to make every copy of a dependency one version, where the manager's own resolution picked another. */
export function pinCommand(manager: PackageManager, name: string, version: string): string {
  switch (manager) {
    case 'pnpm':
      return `add "pnpm": { "overrides": { "${name}": "${version}" } } to package.json, then \`pnpm install\``
    case 'yarn':
      return `add "resolutions": { "${name}": "${version}" } to package.json, then \`yarn install\``
    case 'bun':
      return `add "overrides": { "${name}": "${version}" } to package.json, then \`bun install\``
    default:
      return `run \`npm install ${name}@${version}\``
  }
}

/** Thrown by `createRuntime` when a dependency the chosen sandbox needs is missing or unbuilt. */
export class DependencyError extends Error {
  readonly code = 'ENOPKG'
  override readonly name = 'DependencyError'
}
