/**
 * Where a run is, for `make bench` (bench/runtime.ts times a warm run's bookkeeping from inside runCode) and
 * `codeact run --trace` (runtime/trace-file.ts).
 * Unset otherwise: each point costs one property read.
 */
/** `verdict`: the type check that went on while the program ran answered (runtime/run-verdict.ts). */
export type RunPoint = 'start' | 'staged' | 'sandbox' | 'verdict' | 'ran' | 'end'

export const runMarks: { at?: (point: RunPoint) => void } = {}
