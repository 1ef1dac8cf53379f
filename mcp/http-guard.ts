/**
 * What an HTTP request must show before it reaches a session: a Host naming this loopback port and an
 * Origin that is absent, loopback, or listed (the MCP spec's DNS-rebinding rule: a web page on another site
 * must not drive a local server), the bearer token when one is set (compared in constant time), and a
 * body no larger than the limit.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { BodyBudget } from './http-body-budget.js'

export type Refusal = { status: number; message: string; headers?: Record<string, string> }

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i

/** Normalises an origin (`https://app.example:8443/` → `https://app.example:8443`); throws on nonsense. */
export function normalizeOrigin(origin: string): string {
  const url = new URL(origin)
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`origin ${JSON.stringify(origin)} must be http:// or https://`)
  return url.origin
}

export function checkHost(req: IncomingMessage, port: number): Refusal | undefined {
  const host = req.headers.host ?? ''
  const allowed = [`127.0.0.1:${port}`, `localhost:${port}`]
  if (!allowed.includes(host.toLowerCase()))
    return { status: 403, message: `forbidden Host header ${JSON.stringify(host)}: this server answers only to 127.0.0.1:${port}` }
  return undefined
}

/** No Origin (not a browser): allowed. Loopback pages: allowed. Anything else only when listed. */
export function checkOrigin(origin: string | undefined, allowed: ReadonlySet<string>): Refusal | undefined {
  if (origin === undefined) return undefined
  if (originAllowed(origin, allowed)) return undefined
  return {
    status: 403,
    message: `forbidden Origin ${JSON.stringify(origin)}: only loopback pages and the origins given with --allow-origin may call this server`,
  }
}

export function originAllowed(origin: string, allowed: ReadonlySet<string>): boolean {
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false // includes "null" (sandboxed frames, file:// pages)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false
  return LOOPBACK_HOST.test(url.hostname) || allowed.has(url.origin)
}

/** A checker for `Authorization: Bearer <token>`; digests make the comparison constant-time at any length. */
export function bearerCheck(token: string): (req: IncomingMessage) => Refusal | undefined {
  const want = createHash('sha256').update(token).digest()
  return (req) => {
    const header = req.headers.authorization
    const m = typeof header === 'string' ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null
    const got = createHash('sha256')
      .update(m?.[1] ?? '')
      .digest()
    if (m && timingSafeEqual(want, got)) return undefined
    return {
      status: 401,
      message: m ? 'the bearer token is wrong' : 'this server needs Authorization: Bearer <token>',
      headers: { 'www-authenticate': m ? 'Bearer realm="codeact", error="invalid_token"' : 'Bearer realm="codeact"' },
    }
  }
}

export type BodyRead = { ok: true; value: unknown } | { ok: false; status: number; message: string }

/** Past the limit the rest is read and dropped (so the client hears 413), up to this much; then the socket closes. */
const MAX_DRAIN_BYTES = 64 * 1024 * 1024

/**
 * Reads a JSON body of at most `max` bytes; a larger one is discarded as it arrives and answered 413. What
 * it buffers is taken from `budget` (all bodies in flight, http-body-budget.ts) before it is held: past the
 * budget the body is answered 503 and no more of it is kept.
 */
export function readJsonBody(req: IncomingMessage, max: number, budget: BodyBudget): Promise<BodyRead> {
  const announced = Number(req.headers['content-length'])
  let held = 0
  if (Number.isSafeInteger(announced) && announced <= max) {
    if (!budget.take(announced)) return Promise.resolve(busy(budget))
    held = announced
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    let settled = false
    const settle = (r: BodyRead) => {
      if (settled) return
      settled = true
      chunks.length = 0
      budget.give(held)
      held = 0
      resolve(r)
    }
    req.on('data', (chunk: Buffer) => {
      if (settled) return
      size += chunk.length
      if (size > max) {
        chunks.length = 0
        budget.give(held)
        held = 0
        if (size > max + MAX_DRAIN_BYTES) req.destroy()
        return
      }
      // A body sent without a length (chunked), or longer than it said, takes its share as it comes.
      if (size > held) {
        if (!budget.take(size - held)) return settle(busy(budget))
        held = size
      }
      chunks.push(chunk)
    })
    req.on('error', () => settle({ ok: false, status: 400, message: 'the request body could not be read' }))
    req.on('close', () => settle({ ok: false, status: 413, message: `the request body is larger than the ${max}-byte limit` }))
    req.on('end', () => {
      if (size > max) return settle({ ok: false, status: 413, message: `the request body is larger than the ${max}-byte limit` })
      try {
        settle({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown })
      } catch {
        settle({ ok: false, status: 400, message: 'the body is not JSON' })
      }
    })
  })
}

function busy(budget: BodyBudget): BodyRead {
  return { ok: false, status: 503, message: budget.refusal() }
}
