/**
 * The connection to the Docker engine (the one the deployment gives: DOCKER_HOST or the local socket, or
 * the options passed), and the one place that turns an engine's failure into the text of a
 * `sandbox_unavailable` outcome: infrastructure, never "your program failed", and never a stack trace.
 */
import Docker from 'dockerode'
import { buildImageCommand } from './build-command.js'

export interface Engine {
  docker: Docker
  /** Where it is, for messages: a socket path or a URL. */
  label: string
}

export type Connected = { ok: true; engine: Engine } | { ok: false; message: string }

export function connectEngine(options: Docker.DockerOptions | undefined): Connected {
  try {
    const docker = options === undefined ? new Docker() : new Docker(options)
    return { ok: true, engine: { docker, label: labelOf(docker, options) } }
  } catch (e) {
    // dockerode throws on a malformed DOCKER_HOST.
    return { ok: false, message: `cannot use the Docker engine: ${messageOf(e)}` }
  }
}

function labelOf(docker: Docker, options: Docker.DockerOptions | undefined): string {
  const modem = docker.modem as { socketPath?: unknown; host?: unknown; port?: unknown; protocol?: unknown }
  const socket = options?.socketPath ?? modem.socketPath
  if (typeof socket === 'string') return socket
  if (typeof socket === 'function') return process.env.DOCKER_HOST ?? 'the default socket'
  const host = options?.host ?? modem.host
  const port = options?.port ?? modem.port
  return `${String(options?.protocol ?? modem.protocol ?? 'http')}://${String(host)}${port ? ':' + String(port) : ''}`
}

/** Labels every codeact container carries; the reaper finds orphans by them. */
export const LABEL = 'codeact'
export const INSTANCE_LABEL = 'codeact.instance'
/** On a session's own container: the session's id. */
export const SESSION_LABEL = 'codeact.session'

function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message
  return String(e)
}

const UNREACHABLE = new Set(['ENOENT', 'ECONNREFUSED', 'EACCES', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE'])

/** The message of a `sandbox_unavailable` outcome for an engine error during `what` (e.g. "creating a container"). */
export function describeEngineError(e: unknown, what: string, engine: Engine, image: string): string {
  const err = (e ?? {}) as { code?: unknown; statusCode?: unknown; json?: { message?: unknown } }
  const code = typeof err.code === 'string' ? err.code : undefined
  if (code && UNREACHABLE.has(code)) {
    return `cannot reach the Docker engine at ${engine.label} (${code}): is dockerd running, and is DOCKER_HOST right?`
  }
  const text = typeof err.json?.message === 'string' ? err.json.message : messageOf(e)
  if (err.statusCode === 404 && /no such image|not found/i.test(text) && !/no such container/i.test(text)) {
    return `the runner image "${image}" is not on the Docker engine at ${engine.label}: build it with \`${buildImageCommand(image)}\``
  }
  if (/timeout|timed out/i.test(text)) return `the Docker engine at ${engine.label} did not answer in time while ${what}`
  return `the Docker engine at ${engine.label} failed while ${what}: ${text.slice(0, 500)}`
}
