/**
 * What a program must not reach in an isolate, removed from each fresh context before anything else runs
 * in it (before the prelude, before the program's script is evaluated). Two layers:
 *
 * 1. Engine flags on the child process (`lockdownV8Flags`, per Node line): features V8 then never builds, so no
 *    program can reach them by any path (no constructor, no prototype, no species trick).
 * 2. The guest's lockdown script (guest/lockdown.ts), for what has no flag (and WebAssembly again). The
 *    child refuses to start when the flags are not in effect (`lockdownFlagsMissing`), so it fails closed
 *    rather than quietly open.
 *
 * Each entry says what it does to the process; `test/security/builtin-sweep.test.ts` holds each one and
 * fuzzes every builtin a program can still reach.
 */

/**
 * - `--no-harmony-rab-gsab` (Node 20): resizable `ArrayBuffer`s and growable `SharedArrayBuffer`s take their
 *   memory straight from the page allocator, outside the isolate's limit (measured: 4 GB of RSS in the child
 *   under a 64 MB limit). With the flag, `new ArrayBuffer(n, { maxByteLength })` is a plain buffer. V8 12
 *   (Node 22) shipped the feature and dropped the flag: there the lockdown script makes the constructor
 *   ignore `maxByteLength` and removes `resize`, `resizable` and `maxByteLength`.
 * - `--no-harmony-sharedarraybuffer` (Node 20) or `--enable-sharedarraybuffer-per-context` (Node 22 on,
 *   where the first is gone): no `SharedArrayBuffer` constructor in any context, since the embedder
 *   (isolated-vm, Node in the child) never enables it. Shared memory is only good for `Atomics.wait`.
 * - `--no-expose-wasm` (Node 20, 22): WebAssembly memory is not counted against the limit either. V8 13
 *   (Node 24) dropped the flag; the lockdown script deletes the global on every line.
 * - `--no-validate-asm`: asm.js ("use asm") then runs as the plain JavaScript it is, never compiled to
 *   WebAssembly code. While V8 validates asm.js it builds the whole WebAssembly API into every new context
 *   (`--no-expose-wasm` only leaves it off the global): ~15 % of creating a context, which every run does
 *   (perf: `WasmJs::Install` under `Genesis`; a context 0.67–0.88× the CPU without it). The same language,
 *   so nothing checks for this one (lockdownFlagsMissing): without it a run is only slower.
 *
 * A flag a line's V8 does not know makes `node` refuse to start (`bad option`), so the list follows the line.
 */
export function lockdownV8Flags(line: number = nodeLine()): readonly string[] {
  if (line < 22) return ['--no-harmony-rab-gsab', '--no-harmony-sharedarraybuffer', '--no-expose-wasm', '--no-validate-asm']
  if (line < 24) return ['--enable-sharedarraybuffer-per-context', '--no-expose-wasm', '--no-validate-asm']
  return ['--enable-sharedarraybuffer-per-context', '--no-validate-asm']
}

function nodeLine(): number {
  return Number(process.versions.node.split('.')[0])
}

/**
 * Run in the child's own realm at start-up: the flags are process-wide, so this realm shows them too. Only
 * the flags of this line are looked for; what a line has no flag for, the lockdown script removes.
 */
export function lockdownFlagsMissing(flags: readonly string[] = lockdownV8Flags()): string | undefined {
  const missing: string[] = []
  const realm = globalThis as Record<string, unknown>
  const sab = flags.find((f) => f.includes('sharedarraybuffer'))
  if (sab && realm['SharedArrayBuffer'] !== undefined) missing.push(sab)
  if (flags.includes('--no-expose-wasm') && realm['WebAssembly'] !== undefined) missing.push('--no-expose-wasm')
  if (flags.includes('--no-harmony-rab-gsab')) resizableMissing(missing)
  return missing.length ? missing.join(' ') : undefined
}

function resizableMissing(missing: string[]): void {
  try {
    const Resizable = ArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => { resizable?: boolean }
    if (new Resizable(0, { maxByteLength: 8 }).resizable === true) missing.push('--no-harmony-rab-gsab')
  } catch {
    // an engine without the option at all is fine
  }
}
