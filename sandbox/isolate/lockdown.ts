/**
 * What a program must not reach in an isolate, removed from each fresh context before anything else runs
 * in it (before the prelude, before the program's script is evaluated). Two layers:
 *
 * 1. Engine flags on the child process (`LOCKDOWN_V8_FLAGS`): features V8 then never builds, so no
 *    program can reach them by any path (no constructor, no prototype, no species trick).
 * 2. This script, for what has no flag (and WebAssembly again). The child refuses to start when the
 *    flags are not in effect (`lockdownFlagsMissing`), so it fails closed rather than quietly open.
 *
 * Each entry says what it does to the process; `test/security/builtin-sweep.test.ts` holds each one and
 * fuzzes every builtin a program can still reach.
 */
export const LOCKDOWN_FILENAME = 'codeact-lockdown.js'

/**
 * - `--no-harmony-rab-gsab`: resizable `ArrayBuffer`s and growable `SharedArrayBuffer`s take their memory
 *   straight from the page allocator, outside the isolate's limit (measured: 4 GB of RSS in the child
 *   under a 64 MB limit). With the flag, `new ArrayBuffer(n, { maxByteLength })` is a plain buffer.
 * - `--no-harmony-sharedarraybuffer`: shared memory is only good for `Atomics.wait`/`waitAsync`.
 * - `--no-expose-wasm`: WebAssembly memory is not counted against the limit either.
 * - `--no-validate-asm`: asm.js ("use asm") then runs as the plain JavaScript it is, never compiled to
 *   WebAssembly code. While V8 validates asm.js it builds the whole WebAssembly API into every new context
 *   (`--no-expose-wasm` only leaves it off the global): ~15 % of creating a context, which every run does
 *   (perf: `WasmJs::Install` under `Genesis`; a context 0.67–0.88× the CPU without it). The same language,
 *   so nothing checks for this one (lockdownFlagsMissing): without it a run is only slower.
 */
export const LOCKDOWN_V8_FLAGS: readonly string[] = [
  '--no-harmony-rab-gsab',
  '--no-harmony-sharedarraybuffer',
  '--no-expose-wasm',
  '--no-validate-asm',
]

export const LOCKDOWN_SOURCE = `'use strict';
(function codeactLockdown(g) {
  // WebAssembly memory is not counted against the isolate's memory limit (it grows to gigabytes).
  delete g.WebAssembly;
  // Atomics.waitAsync with a timeout posts a delayed task to a platform that has none: the whole child
  // process aborts (SIGABRT), with every run in it. Atomics.wait blocks the isolate's thread. Neither
  // does anything without shared memory, which a program has no use for.
  delete g.SharedArrayBuffer;
  if (typeof g.Atomics === 'object' && g.Atomics !== null) {
    delete g.Atomics.wait;
    delete g.Atomics.waitAsync;
  }
  // Finalizers run as platform tasks after garbage collection: outside any run's time budget, and in a
  // reused isolate possibly while a later run is executing. WeakRef makes collection observable.
  delete g.FinalizationRegistry;
  delete g.WeakRef;
  // V8's collector: the pool installs it only in a context of its own (collect.ts), but a context another
  // isolate's thread created in that moment has it too.
  delete g.gc;
})(globalThis);
`

/** Run in the child's own realm at start-up: the flags are process-wide, so this realm shows them too. */
export function lockdownFlagsMissing(): string | undefined {
  const missing: string[] = []
  const realm = globalThis as Record<string, unknown>
  if (realm['SharedArrayBuffer'] !== undefined) missing.push('--no-harmony-sharedarraybuffer')
  if (realm['WebAssembly'] !== undefined) missing.push('--no-expose-wasm')
  try {
    const Resizable = ArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => { resizable?: boolean }
    if (new Resizable(0, { maxByteLength: 8 }).resizable === true) missing.push('--no-harmony-rab-gsab')
  } catch {
    // an engine without the option at all is fine
  }
  return missing.length ? missing.join(' ') : undefined
}
