/**
 * The tools every attack program may call. They record what reached the host, so a test can tell that a
 * program which poisoned its own intrinsics still sent the true arguments, and they report the host's own
 * state (its `Object.prototype`) from inside a tool call, where a pollution would matter.
 */
import type { AnyToolDefinition, JsonValue } from '../../vocabulary/types.js'

/** What the host saw while one attack ran. */
export interface HostRecord {
  /** Arguments the `echo` tool received, in order. */
  saw: JsonValue[]
}

/** Own property names of the host's Object.prototype, as the test process started. */
export const HOST_OBJECT_PROTO = Object.getOwnPropertyNames(Object.prototype).sort()
export const HOST_ARRAY_PROTO = Object.getOwnPropertyNames(Array.prototype).sort()

export function hostPrototypesIntact(): boolean {
  const sameAs = (a: string[], b: string[]) => a.length === b.length && a.every((k, i) => k === b[i])
  return (
    sameAs(Object.getOwnPropertyNames(Object.prototype).sort(), HOST_OBJECT_PROTO) &&
    sameAs(Object.getOwnPropertyNames(Array.prototype).sort(), HOST_ARRAY_PROTO) &&
    ({} as Record<string, unknown>)['polluted'] === undefined
  )
}

function nested(depth: number): JsonValue {
  let v: JsonValue = 'bottom'
  for (let i = 0; i < depth; i++) v = [v]
  return v
}

const OPEN = { type: 'object' } as const

export function probeTools(record: HostRecord): AnyToolDefinition[] {
  return [
    {
      name: 'echo',
      description: 'Returns its arguments.',
      parameters: OPEN,
      execute: (args: JsonValue) => {
        record.saw.push(args)
        return args
      },
    },
    {
      name: 'fail',
      description: 'Always fails with EACCES.',
      parameters: OPEN,
      execute: () => {
        throw Object.assign(new Error('denied by the probe'), { code: 'EACCES' })
      },
    },
    {
      name: 'probe',
      description: "Reports the host's own prototypes.",
      parameters: OPEN,
      execute: () => ({ hostIntact: hostPrototypesIntact() }),
    },
    {
      name: 'slow',
      description: 'Waits args.ms (honours the abort signal), then returns args.value.',
      parameters: OPEN,
      execute: (args: { ms?: number; value?: JsonValue }, ctx) =>
        new Promise((resolve) => {
          const timer = setTimeout(() => resolve(args.value ?? null), args.ms ?? 0)
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer)
            resolve(null)
          })
        }),
    },
    {
      name: 'nasty',
      description: 'Returns a hostile value chosen by args.kind.',
      parameters: OPEN,
      execute: (args: { kind?: string }) => {
        switch (args.kind) {
          case 'proto':
            return JSON.parse('{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}') as JsonValue
          case 'deep':
            return nested(200_000)
          case 'big':
            return 'x'.repeat(8 * 1024 * 1024)
          default:
            return null
        }
      },
    },
  ]
}
