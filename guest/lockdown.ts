/**
 * The isolate's lockdown script: what a program must not reach and no engine flag removes, taken out of
 * each fresh context before anything else runs in it (before the prelude, before the program's script).
 * The engine flags are the other layer (sandbox/isolate/lockdown.ts's `lockdownV8Flags`);
 * `test/security/builtin-sweep.test.ts` holds each entry and fuzzes every builtin a program can still reach.
 * Standalone on purpose: it reads the realm before the intrinsics module does.
 */
// biome-ignore lint/suspicious/noExplicitAny: the realm's global object, read and changed by name
type Any = any

/** Arrays longer than this are filled in JavaScript (see below); shorter ones by the engine's own fill. */
const NATIVE_FILL_MAX = 65536

/** Resizable buffers take their memory outside the limit: the constructor drops `maxByteLength`. */
function plainArrayBuffers(g: Any): void {
  const AB = g.ArrayBuffer
  const abProto = AB.prototype
  if (typeof abProto.resize !== 'function') return
  const construct = (target: Any, args: Any[], newTarget: Any): Any => Reflect.construct(target, args.length ? [args[0]] : [], newTarget)
  const Plain = new Proxy(AB, { construct })
  Object.defineProperty(g, 'ArrayBuffer', { value: Plain, writable: true, enumerable: false, configurable: true })
  Object.defineProperty(abProto, 'constructor', { value: Plain, writable: true, enumerable: false, configurable: true })
  delete abProto.resize
  delete abProto.resizable
  delete abProto.maxByteLength
}

/**
 * From V8 13 (Node 24) fill of a dictionary-mode array (new Array(1e9).fill(1)) is one runtime call that
 * neither the memory limit nor the timeout interrupts: isolated-vm's near-limit callback keeps raising
 * the heap limit while it waits to terminate. Long arrays are filled here in JavaScript, which both do.
 */
function interruptibleFill(g: Any): void {
  const nativeFill = g.Array.prototype.fill
  const apply = g.Reflect.apply
  const trunc = g.Math.trunc
  const max = g.Math.max
  const min = g.Math.min
  const Obj = g.Object
  const relative = (x: unknown, len: number): number => {
    const n = trunc(+(x as number)) || 0
    return n < 0 ? max(len + n, 0) : min(n, len)
  }
  const fill = {
    // `arguments`, not a rest parameter: spreading would read Array.prototype[Symbol.iterator], the program's.
    fill(this: Any, value: unknown) {
      if (this === undefined || this === null) throw new TypeError('Array.prototype.fill called on null or undefined')
      const O = Obj(this)
      const len = min(max(trunc(+O.length) || 0, 0), 9007199254740991)
      // biome-ignore lint/complexity/noArguments: see above
      if (len <= NATIVE_FILL_MAX) return apply(nativeFill, O, arguments)
      // biome-ignore lint/complexity/noArguments: see above
      const end = arguments[2] === undefined ? len : relative(arguments[2], len)
      // biome-ignore lint/complexity/noArguments: see above
      for (let k = relative(arguments[1], len); k < end; k++) O[k] = value
      return O
    },
  }.fill
  Obj.defineProperty(g.Array.prototype, 'fill', { value: fill, writable: true, enumerable: false, configurable: true })
}

export function lockdown(g: Any): void {
  // WebAssembly memory is not counted against the isolate's memory limit (it grows to gigabytes).
  delete g.WebAssembly
  plainArrayBuffers(g)
  interruptibleFill(g)
  // Atomics.waitAsync with a timeout posts a delayed task to a platform that has none: the whole child
  // process aborts (SIGABRT), with every run in it. Atomics.wait blocks the isolate's thread. Neither
  // does anything without shared memory, which a program has no use for.
  delete g.SharedArrayBuffer
  if (typeof g.Atomics === 'object' && g.Atomics !== null) {
    delete g.Atomics.wait
    delete g.Atomics.waitAsync
  }
  // Finalizers run as platform tasks after garbage collection: outside any run's time budget, and in a
  // reused isolate possibly while a later run is executing. WeakRef makes collection observable.
  delete g.FinalizationRegistry
  delete g.WeakRef
  // V8's collector: the pool installs it only in a context of its own (collect.ts), but a context another
  // isolate's thread created in that moment has it too.
  delete g.gc
}
