/**
 * Where a run is, for `make bench` (bench/runtime.ts times a warm run's bookkeeping from inside runCode).
 * Unset outside the bench: each point costs one property read.
 */
export type RunPoint = 'start' | 'staged' | 'sandbox' | 'ran' | 'end'

export const runMarks: { at?: (point: RunPoint) => void } = {}
