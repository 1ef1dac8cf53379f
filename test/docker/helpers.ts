/**
 * Shared by the Docker suites: the runner image (built by images/build.sh when missing), a real
 * `SandboxHost` whose tools answer JSON text, programs in the exact form `compile()` produces, and a check
 * that no codeact container is left behind.
 */
import Docker from 'dockerode'
import { build } from 'esbuild'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { JsonValue, LogEntry } from '../../vocabulary/types.js'
import { DEFAULT_IMAGE } from '../../sandbox/docker/index.js'
import type { SandboxHost, SandboxLimits, SandboxRunRequest } from '../../sandbox/types.js'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** The hash images/build.sh stamps on the image: the runner's files (every images/*.mjs, the Dockerfile, the built realm.js) as they are now. */
function runnerHash(): string {
  const h = createHash('sha256')
  const files = fs
    .readdirSync(path.join(repo, 'images'))
    .filter((f) => f.endsWith('.mjs'))
    .sort()
  for (const f of files) h.update(fs.readFileSync(path.join(repo, 'images', f)))
  h.update(fs.readFileSync(path.join(repo, 'images', 'Dockerfile'))) // its entrypoint's flags
  h.update(fs.readFileSync(path.join(repo, 'dist', 'sandbox', 'docker', 'runner', 'realm.js'))) // the realm's setup, built
  return h.digest('hex').slice(0, 16)
}

/**
 * Build the runner image if the engine lacks it or it holds another version of the runner, with the same
 * script `make image` runs (one builder at a time).
 */
export async function ensureImage(): Promise<void> {
  const docker = new Docker()
  const want = runnerHash()
  const has = () =>
    docker
      .getImage(DEFAULT_IMAGE)
      .inspect()
      .then(
        (info) => info.Config.Labels?.['codeact.runner.hash'] === want,
        () => false,
      )
  if (await has()) return
  const lock = path.join(os.tmpdir(), 'codeact-image-build.lock')
  for (let i = 0; i < 600; i++) {
    try {
      fs.mkdirSync(lock)
      break
    } catch {
      await new Promise((r) => setTimeout(r, 500))
    }
  }
  try {
    if (!(await has())) execFileSync('bash', [path.join(repo, 'images/build.sh')], { stdio: 'inherit' })
  } finally {
    fs.rmSync(lock, { recursive: true, force: true })
  }
}

/** A program body in the form `compile()` produces. */
export function program(body: string): string {
  return `(async function (tools, ToolCallError, console) {"use strict";\n${body}\n})`
}

export const LIMITS: SandboxLimits = { timeoutMs: 20_000, memoryMb: 128, maxOutputBytes: 64 * 1024 }

let runs = 0
export function request(
  body: string,
  limits: Partial<SandboxLimits> = {},
  toolNames: string[] = ['echo', 'add', 'fail', 'slow'],
): SandboxRunRequest {
  return { runId: `test-${process.pid}-${++runs}`, js: program(body), toolNames, limits: { ...LIMITS, ...limits } }
}

export interface TestHost extends SandboxHost {
  calls: Array<{ name: string; args: JsonValue }>
  logs: LogEntry[]
}

/** Tools: echo (returns its args), add ({a,b} -> a+b), fail (EACCES), slow (answers after `ms`). */
export function testHost(): TestHost {
  const calls: TestHost['calls'] = []
  const logs: LogEntry[] = []
  return {
    calls,
    logs,
    log: (entries) => void logs.push(...entries),
    async callTool(name, argsJson) {
      let args: JsonValue
      try {
        args = JSON.parse(argsJson) as JsonValue
      } catch {
        return JSON.stringify({ ok: false, error: { code: 'EINVAL', message: 'bad JSON' } })
      }
      calls.push({ name, args })
      const a = (args ?? {}) as Record<string, JsonValue>
      switch (name) {
        case 'echo':
          return JSON.stringify({ ok: true, value: args })
        case 'add':
          return JSON.stringify({ ok: true, value: Number(a.a) + Number(a.b) })
        case 'fail':
          return JSON.stringify({ ok: false, error: { code: 'EACCES', message: 'denied by the test host' } })
        case 'slow':
          await new Promise((r) => setTimeout(r, Number(a.ms ?? 100)))
          return JSON.stringify({ ok: true, value: 'slow done' })
        default:
          return JSON.stringify({ ok: false, error: { code: 'ENOSYS', message: `no tool ${name}` } })
      }
    },
  }
}

export function never(): AbortSignal {
  return new AbortController().signal
}

/** Ids of codeact containers owned by this process (running or not). */
export async function ownContainers(): Promise<string[]> {
  const list = await new Docker().listContainers({ all: true, filters: { label: [`codeact.owner=${os.hostname()}:${process.pid}`] } })
  return list.map((c) => c.Id)
}

/** A temporary workspace the container user (65534) can write. */
export function tempWorkspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codeact-ws-'))
  try {
    fs.chownSync(dir, 65534, 65534)
  } catch {
    fs.chmodSync(dir, 0o777) // not root: the container runs as this user (the owner) anyway
  }
  return dir
}

/** Is the container (id or hostname prefix) still running? A removed container is not. */
export async function isRunning(id: string): Promise<boolean> {
  try {
    return (await new Docker().getContainer(id).inspect()).State.Running
  } catch {
    return false
  }
}

/**
 * Bundles test/docker/fixtures/NAME.ts (a host process a test kills) into one runnable file under dist/
 * (its packages resolved from the repository's node_modules at run time); resolves its path.
 */
export async function bundleFixture(name: string): Promise<string> {
  const outfile = path.join(repo, 'dist', '.test-fixtures', `${name}.mjs`)
  await build({
    entryPoints: [path.join(repo, 'test/docker/fixtures', `${name}.ts`)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile,
    logLevel: 'silent',
  })
  return outfile
}
