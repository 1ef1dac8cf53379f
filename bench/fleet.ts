/**
 * Replicas of `codeact mcp --http` as real processes behind a real HAProxy (Debian's /usr/sbin/haproxy),
 * round-robin per request (or by another `balance`), for the multi-replica tests and the bench. Every replica shares one session
 * store (a PostgreSQL URL) and a tools file whose tool appends a line per call to a file, so a test counts
 * executions whichever replica ran them. Each replica can be killed with SIGKILL and started again on its
 * port; the processes it left (its isolate children) are listed from /proc. Shared by test/deploy/ and
 * bench/replicas.ts (`make bench` compiles it into dist/bench/, so the repository is found by walking up).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from './postgres.js'

/** The repository: the nearest folder above this file (bench/ or dist/bench/) holding bin/codeact.mjs. */
function findRepo(from: string): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) if (existsSync(join(dir, 'bin', 'codeact.mjs'))) return dir
  throw new Error(`bin/codeact.mjs not found above ${from}`)
}
const REPO = findRepo(dirname(fileURLToPath(import.meta.url)))

const HAPROXY = ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy'].find(existsSync) ?? which('haproxy')
const inCI = process.env['CI'] === 'true' || process.env['CI'] === '1'
/** Is HAProxy here? In CI a missing one is a failure (.ci/run installs it), elsewhere a skip with the reason. */
export const haproxySkip = !HAPROXY && !inCI
if (!HAPROXY) console.warn(`[replica tests ${inCI ? 'FAIL in CI' : 'skipped'}] haproxy is not installed; apt-get install haproxy`)

function which(cmd: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim() || undefined
  } catch {
    return undefined
  }
}

/** A tools module: `count({ key })` appends `key` to the ledger file and answers how many lines it has. */
function writeTools(dir: string, ledger: string): string {
  const file = join(dir, 'tools.mjs')
  writeFileSync(
    file,
    `import { appendFileSync } from 'node:fs'
export default [{
  name: 'count',
  description: 'Records one call under key; answers the key.',
  parameters: { type: 'object', properties: { key: { type: 'string' }, ms: { type: 'number' } }, required: ['key'] },
  execute: async ({ key, ms }) => {
    if (ms) await new Promise((r) => setTimeout(r, ms))
    appendFileSync(${JSON.stringify(ledger)}, key + '\\n')
    return key
  },
}]
`,
  )
  return file
}

export interface Replica {
  port: number
  process: ChildProcess
  /** The process's descendants now (pids), from /proc. */
  descendants(): number[]
}

export interface Fleet {
  /** HAProxy's MCP endpoint. */
  url: string
  token: string
  replicas: Replica[]
  /** Lines the tool appended: one per execution. */
  ledger(): string[]
  /** CPU ms used so far by the replicas and their processes (live and exited), and by HAProxy. */
  cpuMs(): { replicas: number; haproxy: number }
  kill9(i: number): Promise<number[]>
  restart(i: number): Promise<void>
  close(): Promise<void>
}

/** Every descendant of `pid`, from /proc (ppid is field 4 of /proc/PID/stat). */
export function descendantsOf(pid: number): number[] {
  const out: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === pid) out.push(Number(entry))
    } catch {}
  }
  return out.flatMap((c) => [c, ...descendantsOf(c)])
}

export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !/^\d+ \(.*\) Z/.test(stat) // a zombie has exited
  } catch {
    return false
  }
}

/** Replicas that exited without being told to, with their last words. */
export const exits: string[] = []

async function startReplica(port: number, args: string[], env: NodeJS.ProcessEnv): Promise<Replica> {
  const child = spawn(process.execPath, [join(REPO, 'bin', 'codeact.mjs'), 'mcp', '--http', `0.0.0.0:${port}`, ...args], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let text = ''
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      text += c.toString()
      if (text.includes('serving streamable HTTP')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`replica on ${port} exited (${code}): ${text}`)))
  })
  // What the replica says from now on, its last 4 kB: why it exited, when it did so on its own.
  child.stderr!.on('data', (c: Buffer) => void (text = (text + c.toString()).slice(-4096)))
  child.once('exit', (code, signal) => {
    if (signal !== 'SIGKILL' && signal !== 'SIGTERM') exits.push(`replica on ${port} exited (${code ?? signal}): ${text}`)
  })
  return { port, process: child, descendants: () => descendantsOf(child.pid!) }
}

function haproxyConfig(port: number, replicaPorts: number[], balance: string): string {
  return `global
  maxconn 4096
defaults
  mode http
  timeout connect 2s
  timeout check 3s
  timeout client 5m
  timeout server 5m
  retries 3
  option redispatch
frontend mcp
  bind 127.0.0.1:${port}
  default_backend codeact
backend codeact
  balance ${balance}
  http-response set-header X-Served-By %s
  option httpchk GET /readyz
  http-check expect status 200
${replicaPorts.map((p, i) => `  server r${i} 127.0.0.1:${p} check inter 1s fall 3 rise 1`).join('\n')}
`
}

/** CPU time of `pid` and of the children it has reaped, in ms (fields 14–17 of /proc/PID/stat, in ticks). */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10
  } catch {
    return 0
  }
}

/** CPU ms of `pid` and every process under it, live or exited. */
export function treeCpuMs(pid: number): number {
  return [pid, ...descendantsOf(pid)].reduce((sum, p) => sum + cpuMsOf(p), 0)
}

/**
 * `n` replicas on `store` (a postgres:// URL; undefined: each replica's own embedded store, which only
 * one replica can serve correctly) behind one HAProxy spreading requests by `balance` (HAProxy's keyword:
 * `roundrobin` per request, or `hdr(Mcp-Session-Id)` to keep a session on one replica while it is up).
 */
export async function startFleet(
  name: string,
  n: number,
  store: string | undefined,
  extraArgs: string[] = [],
  balance = 'roundrobin',
): Promise<Fleet> {
  if (!HAPROXY) throw new Error('haproxy is not installed')
  const dir = mkdtempSync(join(tmpdir(), `codeact-fleet-${name}-`))
  const ledgerFile = join(dir, 'ledger')
  writeFileSync(ledgerFile, '')
  const token = `fleet-${name}-${Math.random().toString(36).slice(2)}-token`
  const env = { ...process.env, CODEACT_MCP_TOKEN: token }
  const args = [...(store ? ['--store', store] : []), '--typecheck=off', '--tools', writeTools(dir, ledgerFile), ...extraArgs]
  const ports = await Promise.all(Array.from({ length: n }, () => freePort()))
  const replicas = await Promise.all(ports.map((p) => startReplica(p, args, env)))
  const lbPort = await freePort()
  writeFileSync(join(dir, 'haproxy.cfg'), haproxyConfig(lbPort, ports, balance))
  const lb = spawn(HAPROXY, ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: 'ignore' })
  const url = `http://127.0.0.1:${lbPort}/mcp`
  for (
    let i = 0;
    i < 100 &&
    (await fetch(url, { method: 'POST' }).then(
      (r) => r.status,
      () => 0,
    )) !== 401;
    i++
  )
    await new Promise((r) => setTimeout(r, 100))
  const stop = (c: ChildProcess, signal: NodeJS.Signals) =>
    c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => (c.once('exit', () => r()), c.kill(signal)))
  return {
    url,
    token,
    replicas,
    ledger: () => readFileSync(ledgerFile, 'utf8').split('\n').filter(Boolean),
    cpuMs: () => ({
      replicas: replicas.reduce((sum, r) => sum + treeCpuMs(r.process.pid!), 0),
      haproxy: treeCpuMs(lb.pid!),
    }),
    async kill9(i) {
      const r = replicas[i]!
      const left = r.descendants()
      await stop(r.process, 'SIGKILL')
      return left
    },
    async restart(i) {
      replicas[i] = await startReplica(ports[i]!, args, env)
    },
    async close() {
      await Promise.all([...replicas.map((r) => stop(r.process, 'SIGTERM')), stop(lb, 'SIGTERM')])
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
