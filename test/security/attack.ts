/** The shape of one entry of the attack corpus. */
import type { JsonValue, Limits, RunErrorKind, RunResult } from '../../vocabulary/types.js'

export type Expect =
  /** The program ran to its end and was inert: it returned exactly this (undefined: nothing reportable). */
  | { value: JsonValue | undefined }
  /** The run failed with this typed kind (and errno-style code, message). */
  | { error: RunErrorKind; code?: string; message?: RegExp }

export interface Attack {
  name: string
  /** The known escape or failure this is modelled on (vm2 advisory, isolated-vm issue, notes B3 row). */
  cite: string
  /** The program (TypeScript, the body of an async function). */
  code: string
  expect: Expect
  /**
   * The expectation in a container, where the container is the boundary and the program legitimately has
   * the container's own Node (`process`, `require`, `fs`): it must still see nothing of the host.
   */
  docker?: Expect
  /** A second acceptable outcome, where two fixes of one hole are both right (documented at the entry). */
  orElse?: Expect
  limits?: Partial<Limits>
  /** A program run first in the same runtime (state carried from one run to the next). */
  before?: string
  /** Limits of the `before` run, and the error kind it must end with (default: no error). */
  beforeLimits?: Partial<Limits>
  beforeError?: RunErrorKind
  /** The arguments the host's `echo` tool must have received, in order. */
  toolSaw?: JsonValue[]
  /** Further host-side checks on the result (throw to fail). */
  check?: (result: RunResult) => void
}
