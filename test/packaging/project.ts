/**
 * A user's project, made the way a user makes one: codeact's packed tarball (`npm pack`) installed into a
 * fresh folder by a real package manager, then used through its published entry points only (`codeact`,
 * its subpaths, `npx codeact`). Child processes get the environment of a person's shell: none of the
 * `npm_config_*` variables that `npx vitest` set, so the package manager is found as a user's would be.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO = fileURLToPath(new URL('../..', import.meta.url))
export const LINE = Number(process.versions.node.split('.')[0])

export interface Ran {
  status: number | null
  stdout: string
  stderr: string
}

/** The environment of a shell: PATH and HOME, no package manager's variables. */
export function shellEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!/^(npm_|VITEST|NODE_OPTIONS|INIT_CWD)/i.test(k)) env[k] = v
  return { ...env, ...extra }
}

export function run(cwd: string, command: string, args: string[], extra: Record<string, string> = {}): Ran {
  const r = spawnSync(command, args, { cwd, env: shellEnv(extra), encoding: 'utf8', timeout: 600_000 })
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? String(r.error ?? '') }
}

/** Runs and fails the test with what the command said when it does not exit 0. */
export function ok(cwd: string, command: string, args: string[], extra: Record<string, string> = {}): Ran {
  const r = run(cwd, command, args, extra)
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status}:\n${r.stdout}\n${r.stderr}`)
  return r
}

/** `npm pack` of this tree (built already: the tests run after `npm run build`). */
export function packTarball(): string {
  const dir = mkdtempSync(join(tmpdir(), 'codeact-pack-'))
  ok(REPO, 'npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir])
  const file = readdirSync(dir).find((f) => f.endsWith('.tgz'))
  if (!file) throw new Error(`npm pack left no tarball in ${dir}`)
  return join(dir, file)
}

export function freshProject(name: string, manifest: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), `codeact-${name}-`))
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true, type: 'module', ...manifest }, null, 2))
  return dir
}

export const PNPM = ['--yes', 'pnpm@10']

export function removeAll(...dirs: (string | undefined)[]): void {
  for (const d of dirs) if (d) rmSync(d, { recursive: true, force: true })
}
