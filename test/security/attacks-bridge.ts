/**
 * The bridge: a program that poisons its own intrinsics, hands hostile values to tools or returns them,
 * plants `__proto__` keys, or leaves state behind for the next run. The tool must still see the true
 * arguments, the program the true result, and the host's prototypes must stay as they were.
 */
import type { Attack } from './attack.js'

const ARGS = { a: 'true', list: [1, 2, 3], nested: { b: null } }
const ARGS_TEXT = JSON.stringify(ARGS)

export const bridgeAttacks: Attack[] = [
  {
    name: 'JSON.stringify and JSON.parse replaced before a call',
    cite: 'CVE-2022-25893: the vm2 bridge used a patchable intrinsic',
    code: `
      JSON.stringify = () => '{"a":"evil"}'
      JSON.parse = () => ({ evil: true })
      const r = await tools.echo(${ARGS_TEXT})
      return r`,
    expect: { value: ARGS },
    toolSaw: [ARGS],
  },
  {
    name: 'Promise.prototype.then, catch and finally replaced',
    cite: 'CVE-2026-22709 / CVE-2026-92937: unsanitized then/catch, `then.call` indirection',
    code: `
      const then = Promise.prototype.then
      Promise.prototype.then = function () { return 'hijacked' }
      Promise.prototype.catch = function () { return 'hijacked' }
      Promise.prototype.finally = function () { return 'hijacked' }
      const r = await tools.echo(${ARGS_TEXT})
      let code = ''
      try { await tools.fail({}) } catch (e) { code = e.code }
      Promise.prototype.then = then
      return [r, code]`,
    expect: { value: [ARGS, 'EACCES'] },
    toolSaw: [ARGS],
  },
  {
    name: 'Promise.prototype.then and constructor left replaced when the program returns',
    cite: 'CVE-2026-92939: a host promise adopted through a patched then/species at the end of a run',
    code: `
      Promise.prototype.then = function () { return new Promise(() => {}) }
      ;(Promise.prototype as any).constructor = function () {}
      return 'returned'`,
    limits: { timeoutMs: 5000 },
    expect: { value: 'returned' },
  },
  {
    name: 'Promise species and constructor replaced',
    cite: 'CVE-2023-37466 / CVE-2026-47210: Promise species bypassed handler sanitization',
    code: `
      class Evil extends Promise {}
      Object.defineProperty(Promise, Symbol.species, { get() { return Evil } })
      Promise.prototype.constructor = Evil
      const r = await tools.echo(${ARGS_TEXT})
      const p = tools.echo({})
      const proto = Object.getPrototypeOf(p) === Promise.prototype
      await p
      return [r, proto]`,
    expect: { value: [ARGS, true] },
    toolSaw: [ARGS, {}],
  },
  {
    name: 'Array.prototype methods and an index setter on Array.prototype',
    cite: 'CVE-2026-44008: an Array.prototype[N] setter stole the bridge state',
    code: `
      const stolen = []
      Object.defineProperty(Array.prototype, '0', { set(v) { stolen.push(v) }, get() { return 'evil' }, configurable: true })
      Array.prototype.push = function () { throw new Error('push poisoned') }
      Array.prototype.join = function () { return 'evil' }
      Array.prototype.map = function () { return ['evil'] }
      const r = await tools.echo(${ARGS_TEXT})
      const list = (await tools.echo({ list: [1, 2] })).list
      delete Array.prototype[0]
      return [r, list, stolen.length]`,
    expect: { value: [ARGS, [1, 2], 0] },
    toolSaw: [ARGS, { list: [1, 2] }],
  },
  {
    name: 'Function.prototype.call, apply, bind and Reflect.apply replaced',
    cite: 'vm2 ATTACKS.md invariant "capture Reflect and intrinsics at init"',
    code: `
      Function.prototype.call = function () { return 'evil' }
      Function.prototype.apply = function () { return 'evil' }
      Function.prototype.bind = function () { return () => 'evil' }
      Reflect.apply = () => 'evil'
      Object.freeze = (o) => o
      const r = await tools.echo(${ARGS_TEXT})
      console.log('still', 'logging')
      return r`,
    expect: { value: ARGS },
    toolSaw: [ARGS],
    check: (r) => {
      if (!r.logs.some((l) => l.text === 'still logging')) throw new Error('console broke after poisoning')
    },
  },
  {
    name: 'getters for ok, value, error and code on Object.prototype',
    cite: 'CVE-2026-44005: host intrinsic prototype pollution through bridge traps',
    code: `
      for (const key of ['ok', 'value', 'error', 'code', 'message', 'valueJson']) {
        Object.defineProperty(Object.prototype, key, { __proto__: null, get() { return 'evil' }, configurable: true })
      }
      const r = await tools.echo({ x: 1 })
      let code = ''
      try { await tools.fail({}) } catch (e) { code = e.code }
      for (const key of ['ok', 'value', 'error', 'code', 'message', 'valueJson']) delete Object.prototype[key]
      return [r.x, code]`,
    limits: { timeoutMs: 5000 },
    expect: { value: [1, 'EACCES'] },
    toolSaw: [{ x: 1 }],
  },
  {
    name: 'Proxies, getters, toJSON and Symbol.toPrimitive as tool arguments',
    cite: 'notes B3 #6-#7: the host must never run guest code while reading arguments',
    code: `
      const proxy = new Proxy({}, {
        ownKeys: () => ['p'],
        getOwnPropertyDescriptor: () => ({ value: 'from-proxy', enumerable: true, configurable: true }),
        get: (t, k) => (k === 'p' ? 'from-proxy' : undefined),
      })
      await tools.echo(proxy)
      await tools.echo({ get g() { return 'from-getter' } })
      await tools.echo({ toJSON() { return { t: 'from-toJSON' } } })
      await tools.echo({ n: { [Symbol.toPrimitive]: () => 42, toString: () => 'str' }, f: () => 1, s: Symbol('x'), u: undefined })
      return 'sent'`,
    expect: { value: 'sent' },
    toolSaw: [{ p: 'from-proxy' }, { g: 'from-getter' }, { t: 'from-toJSON' }, { n: {} }],
  },
  {
    name: 'a getter that never returns, as a tool argument',
    cite: 'notes B3 #6: `{ get x() { for (;;); } }` — bounded by the run deadline, inside the sandbox',
    code: `await tools.echo({ get x() { for (;;) {} } }); return 'unreachable'`,
    limits: { timeoutMs: 1500 },
    expect: { error: 'timeout' },
    toolSaw: [],
  },
  {
    name: 'a thenable and a throwing toJSON as tool arguments',
    cite: 'notes B3 #7: thenables and throwing conversions stay inside the sandbox',
    code: `
      const out = []
      try { await tools.echo({ toJSON() { throw new Error('no') } }) } catch (e) { out.push(e.code) }
      let thenCalled = false
      await tools.echo({ then() { thenCalled = true } })
      out.push(thenCalled)
      try { await tools.echo('just a string') } catch (e) { out.push(e.code) }
      return out`,
    expect: { value: ['EINVAL', false, 'EINVAL'] },
    toolSaw: [{}],
  },
  {
    name: 'thenables, Proxies and toJSON as the return value',
    cite: 'notes B3 #8: a poisoned result is serialised in the sandbox, under the deadline',
    code: `
      const values = [
        { toJSON() { return 'custom' } },
        new Proxy({}, { ownKeys: () => ['k'], getOwnPropertyDescriptor: () => ({ value: 1, enumerable: true, configurable: true }), get: () => 1 }),
      ]
      return { then(resolve) { resolve(values) } }`,
    expect: { value: ['custom', { k: 1 }] },
  },
  {
    name: 'a return value whose serialisation throws',
    cite: 'CVE-2023-30547: an exception raised while the sandbox answer is handled',
    code: `return new Proxy({}, { ownKeys() { throw new Error('boom') } })`,
    expect: { value: undefined },
    check: (r) => {
      if (!r.ok || !/could not be reported/.test(r.observation)) throw new Error(`expected a note, got: ${r.observation}`)
    },
  },
  {
    name: 'a thenable that never settles as the return value',
    cite: 'notes B3 #8 and #15: the final value is adopted like any thenable; the deadline still holds',
    code: `return { then() {} }`,
    limits: { timeoutMs: 1500 },
    expect: { error: 'timeout' },
  },
  {
    name: '__proto__ and constructor.prototype keys in a tool result',
    cite: 'CVE-2021-23449: prototype pollution across the bridge',
    code: `
      const r = await tools.nasty({ kind: 'proto' })
      const merged = Object.assign({}, r)
      const deep = JSON.parse(JSON.stringify(r))
      const probe = await tools.probe({})
      return [Object.keys(r), ({}).polluted ?? null, probe.hostIntact, typeof merged.polluted, Object.keys(deep)]`,
    expect: { value: [['__proto__', 'constructor'], null, true, 'string', ['__proto__', 'constructor']] },
  },
  {
    name: '__proto__ keys in tool arguments and in the return value',
    cite: 'CVE-2021-23449 / CVE-2026-44005: host merges of sandbox JSON',
    code: `
      await tools.echo(JSON.parse('{"__proto__":{"polluted":"yes"},"x":1}'))
      await tools.echo({ nested: JSON.parse('{"__proto__":{"polluted":"yes"}}') })
      const probe = await tools.probe({})
      return [probe.hostIntact, JSON.parse('{"__proto__":{"polluted":"yes"}}')]`,
    expect: { value: [true, JSON.parse('{"__proto__":{"polluted":"yes"}}')] },
  },
  {
    name: 'globals and prototypes planted by one run, read by the next',
    cite: 'notes B3 #11: a fresh context per run; nothing persists between runs',
    before: `
      globalThis.leak = 'run1'
      Object.prototype.leak = 'run1'
      Array.prototype.leak = 'run1'
      Error.prepareStackTrace = () => 'run1'
      JSON.stringify = () => '"run1"'
      Promise.prototype.then = () => 'run1'
      return 'planted'`,
    code: `return [typeof globalThis.leak, ({}).leak ?? null, [].leak ?? null, typeof Error.prepareStackTrace, JSON.stringify({ a: 1 }), await tools.echo({ ok: 1 })]`,
    expect: { value: ['undefined', null, null, 'undefined', '{"a":1}', { ok: 1 }] },
  },
  {
    name: 'detached work left running by one run',
    cite: 'isolated-vm #273: detached promise callbacks keep running after the call that started them',
    // A run waits for the calls its program left pending (no silent half-runs), so a detached loop that
    // never ends keeps its run going until the run's own timeout stops it — and the next run sees none of it.
    // Each call's arguments differ: identical ones in a row are stopped sooner (--max-identical-calls).
    before: `
      void (async () => { for (let i = 0; ; i++) { await tools.slow({ ms: 20, value: String(i) }); globalThis.ticks = i + 1 } })()
      void tools.slow({ ms: 400, value: 'late' })
      return 'left running'`,
    // Its program time is only the gaps between a call's answer and the next call (~1 % of the wall clock): at
    // 1,500 ms the run took 70–144 s on the 2-core VM, against the corpus's 120 s per attack; 500 ms takes ~27 s.
    beforeLimits: { timeoutMs: 500 },
    beforeError: 'timeout',
    code: `await tools.slow({ ms: 200 }); return [typeof globalThis.ticks, await tools.echo({ fresh: true })]`,
    expect: { value: ['undefined', { fresh: true }] },
  },
  {
    name: 'unhandled rejections at the end of a run',
    cite: 'CVE-2026-44001: an unhandled rejection in a sandbox crashed the host',
    code: `
      Promise.reject(new Error('unhandled'))
      void tools.fail({})
      return 'returned'`,
    // Like Node, an unhandled rejection fails the run (typed, with the program's own message), in both backends.
    expect: { error: 'runtime', message: /unhandled/ },
  },
  {
    name: 'run_code and odd names called from inside a program',
    cite: 'recursion through the bridge; the tool-name rule `[A-Za-z0-9_-]{1,64}`',
    code: `
      const out = []
      for (const name of ['run_code', '__proto__', '../../etc/passwd', 'x'.repeat(100), 'hasOwnProperty']) {
        try { await tools[name]({ code: 'return 1' }); out.push('resolved') } catch (e) { out.push(e.code) }
      }
      return out`,
    expect: { value: ['ENOSYS', 'ENOSYS', 'ENOSYS', 'ENOSYS', 'ENOSYS'] },
  },
]
