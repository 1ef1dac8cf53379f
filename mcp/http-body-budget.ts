/**
 * The bytes of request bodies the HTTP server holds at once, across all requests. `--max-body` caps each
 * body; without a cap on the sum, many slow bodies (each under the limit, sent a byte at a time) held as
 * much host memory as there were connections. A request takes its share before its body is buffered: the
 * Content-Length it announces at once (or nothing is read), a chunked body chunk by chunk; what it took is
 * given back when the body is parsed or dropped. A request that does not fit is answered 503 with
 * Retry-After, and its body is never read.
 */

export const DEFAULT_MAX_BODIES_IN_FLIGHT_BYTES = 64 * 1024 * 1024

/** Seconds a refused client is told to wait: bodies in flight end within a request's time. */
export const BODY_RETRY_AFTER_S = 2

export class BodyBudget {
  readonly max: number
  #used = 0

  constructor(max: number) {
    this.max = max
  }

  /** Bytes held now. */
  get used(): number {
    return this.#used
  }

  /** Takes `bytes` when they fit; false (nothing taken) when they do not. */
  take(bytes: number): boolean {
    if (bytes < 0 || this.#used + bytes > this.max) return false
    this.#used += bytes
    return true
  }

  give(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes)
  }

  /** The refusal's text: what was full, and the flag that raises it. */
  refusal(): string {
    return `the server holds ${this.max} bytes of request bodies at once and is full; try again in ${BODY_RETRY_AFTER_S} s (raise it with --max-bodies-in-flight)`
  }
}
