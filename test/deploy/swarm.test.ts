/**
 * deploy/swarm/compose.yaml as a Swarm stack on a one-node swarm of this machine's engine: PostgreSQL,
 * three codeact replicas and HAProxy, from images built offline here. Sessions of the official MCP client
 * go through HAProxy, round-robin, so one session's turns reach different replicas; each keeps its state.
 */
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from '../../bench/fleet-client.js'
import { REPO } from './paths.js'
import { buildImages, docker, joinSwarm, removeStack, swarmSkip } from './swarm.js'

const STACK = 'codeact-deploy32-test'
const SESSIONS = 6
const TURNS = 4

async function replicasUp(env: NodeJS.ProcessEnv): Promise<void> {
  const want = new Map([
    [`${STACK}_codeact`, '3/3'],
    [`${STACK}_postgres`, '1/1'],
    [`${STACK}_haproxy`, '1/1'],
  ])
  let seen = ''
  for (let i = 0; i < 240; i++) {
    seen = await docker(
      ['service', 'ls', '--filter', `label=com.docker.stack.namespace=${STACK}`, '--format', '{{.Name}} {{.Replicas}}'],
      env,
    )
    const now = new Map(seen.split('\n').map((l) => l.split(' ') as [string, string]))
    if ([...want].every(([name, replicas]) => now.get(name) === replicas)) return
    await new Promise((r) => setTimeout(r, 500))
  }
  throw new Error(`the stack did not come up: ${seen}\n${await docker(['service', 'ps', '--no-trunc', `${STACK}_codeact`], env)}`)
}

/**
 * Until HAProxy answers /mcp (401 without the token) from each of the three replicas: it resolves and
 * health-checks them one by one, and a session started while it knows one replica stays on that one.
 */
async function balancerUp(url: string): Promise<void> {
  const seen = new Set<string>()
  for (let i = 0; i < 480 && seen.size < 3; i++) {
    const served = await fetch(url, { method: 'POST', body: '{}' }).then(
      (r) => (r.status === 401 ? r.headers.get('x-served-by') : null),
      () => null,
    )
    if (served) seen.add(served)
    await new Promise((r) => setTimeout(r, 250))
  }
  if (seen.size < 3) throw new Error(`HAProxy at ${url} reached ${seen.size} of 3 replicas`)
}

describe.skipIf(swarmSkip)('the Compose file deployed as a Swarm stack', () => {
  const token = randomBytes(24).toString('base64url')
  const port = 20_000 + Math.floor(Math.random() * 20_000)
  const url = `http://127.0.0.1:${port}/mcp`
  let leave: (() => Promise<void>) | undefined

  beforeAll(async () => {
    const images = await buildImages('deploy32-test')
    leave = await joinSwarm()
    // A run cut short leaves its stack and the database volume (initialised with another password) behind.
    await removeStack(STACK)
    const env = {
      ...process.env,
      CODEACT_SERVER_IMAGE: images.server,
      CODEACT_POSTGRES_IMAGE: images.postgres,
      CODEACT_HAPROXY_IMAGE: images.haproxy,
      CODEACT_PORT: String(port),
      CODEACT_MCP_TOKEN: token,
      POSTGRES_PASSWORD: randomBytes(12).toString('hex'),
    }
    await docker(['stack', 'deploy', '-c', join(REPO, 'deploy', 'swarm', 'compose.yaml'), STACK], env)
    await replicasUp(env)
    await balancerUp(url)
  }, 900_000)

  afterAll(async () => {
    await removeStack(STACK)
    await leave?.()
  }, 180_000)

  it('serves sessions from three replicas; each turn sees the state the turns before it left', async () => {
    const clients = await Promise.all(Array.from({ length: SESSIONS }, () => connect(url, token)))
    try {
      await Promise.all(
        clients.map(async (client, s) => {
          const first = await client.run(`let total = ${s}; total`)
          expect(first, first.text).toMatchObject({ ok: true, value: s })
          // Round-robin over six clients in step can keep one client on one replica; a few more turns
          // (bounded) make sure every session moved between replicas and kept its state.
          for (let turn = 1; turn < TURNS || (new Set(client.servedBy).size < 2 && turn < TURNS + 12); turn++) {
            const next = await client.run(`total += ${turn}; total`)
            expect(next, next.text).toMatchObject({ ok: true, value: s + (turn * (turn + 1)) / 2 })
          }
        }),
      )
      const replicas = new Set(clients.flatMap((c) => c.servedBy))
      expect([...replicas].sort()).toHaveLength(3)
      // Every session was served by more than one replica.
      for (const c of clients) expect(new Set(c.servedBy).size).toBeGreaterThan(1)
    } finally {
      await Promise.all(clients.map((c) => c.close()))
    }
  })
})
