/**
 * Escapes: walking a constructor chain from every object a program can touch to the host's `Function`,
 * looking for host globals or isolated-vm objects, loading modules, reading stack frames, reaching a secret.
 * In the isolate every one of them must stay in the isolate's own realm. Written from the advisories in
 * notes/sandbox-security.md (B1, B3), not copied from any exploit.
 */
import type { Attack } from './attack.js'

/** From any object: its constructor's constructor is a `Function`; in the host realm it would see `process`. */
/** A file that exists on the host and nowhere else a program could look. */
const HOST_FILE_TEXT = JSON.stringify(`${process.cwd()}/package.json`)
const reach = (expr: string) => `(${expr}).constructor.constructor('return typeof process')()`

export const escapeAttacks: Attack[] = [
  {
    name: 'Function constructor of a plain function',
    cite: 'node:vm canonical escape (hacksparrow/safe-eval#5): this.constructor.constructor("return process")()',
    code: `return (function () {}).constructor('return [typeof process, typeof require, typeof module]')()`,
    expect: { value: ['undefined', 'undefined', 'undefined'] },
    // In a container the program has the container's Node; `module` is still not defined there.
    docker: { value: ['object', 'function', 'undefined'] },
  },
  {
    name: 'global object through Function("return this")',
    cite: 'vm2 #138 / CVE-2019-10761: reach the realm global through a constructor chain',
    code: `const g = Function('return this')(); return [g === globalThis, typeof g.process, typeof g.global]`,
    expect: { value: [true, 'undefined', 'undefined'] },
    docker: { value: [true, 'object', 'object'] },
  },
  {
    name: 'constructor chain of `tools` (a Proxy)',
    cite: 'GHSA-mmhj-4w6j-76h7 (isolated-vm < 4): an injected object exposed its prototype chain to the host Function',
    code: `return [${reach('tools')}, ${reach('Object.getPrototypeOf(tools) ?? {}')}, typeof Object.getPrototypeOf(tools)]`,
    expect: { value: ['undefined', 'undefined', 'object'] },
    docker: { value: ['object', 'object', 'object'] },
  },
  {
    name: 'constructor chain, caller and arguments of every tool function',
    cite: 'notes B3 #3: an injected function as a springboard (.constructor, .caller, .arguments, prototype)',
    code: `
      const out = []
      for (const name of ['echo', 'fail', 'probe', 'slow', 'nasty']) {
        const fn = tools[name]
        let caller = 'absent'
        try { caller = typeof fn.caller } catch { caller = 'throws' }
        let args = 'absent'
        try { args = typeof fn.arguments } catch { args = 'throws' }
        out.push([name, ${reach('fn')}, ${reach('Object.getPrototypeOf(fn)')}, caller, args, Object.isFrozen(fn)])
      }
      return out`,
    expect: {
      value: ['echo', 'fail', 'probe', 'slow', 'nasty'].map((n) => [n, 'undefined', 'undefined', 'throws', 'throws', true]),
    },
    docker: {
      value: ['echo', 'fail', 'probe', 'slow', 'nasty'].map((n) => [n, 'object', 'object', 'throws', 'throws', true]),
    },
  },
  {
    name: 'a made-up tool name is a plain stub, not a host object',
    cite: 'notes B3 #3 (Proxy get trap invents members: `tools.constructor`, `tools.__proto__`)',
    code: `
      const stub = tools['constructor']
      let code = ''
      try { await stub({}) } catch (e) { code = e.code }
      return [typeof stub, ${reach('stub')}, code, typeof tools.then, typeof tools.toJSON]`,
    expect: { value: ['function', 'undefined', 'ENOSYS', 'undefined', 'undefined'] },
    docker: { value: ['function', 'object', 'ENOSYS', 'undefined', 'undefined'] },
  },
  {
    name: 'constructor chain of a caught ToolCallError',
    cite: 'vm2 #138 / CVE-2023-29199 / CVE-2023-30547: a raw host exception caught in the sandbox',
    code: `
      try { await tools.fail({}) } catch (e) {
        return [e.name, e.code, e.toolName, e instanceof ToolCallError, e instanceof Error, ${reach('e')}, ${reach('Object.getPrototypeOf(Object.getPrototypeOf(e))')}]
      }
      return 'not thrown'`,
    expect: { value: ['ToolCallError', 'EACCES', 'fail', true, true, 'undefined', 'undefined'] },
    docker: { value: ['ToolCallError', 'EACCES', 'fail', true, true, 'object', 'object'] },
  },
  {
    name: 'constructor chain of a rejected tool promise',
    cite: 'CVE-2026-22709 / CVE-2026-44000: the realm Promise of a host call kept host identity',
    code: `
      const p = tools.fail({})
      p.catch(() => {})
      const reason = await p.then(() => null, (e) => e)
      return [p instanceof Promise, p.constructor === Promise, ${reach('p')}, ${reach('reason')}]`,
    expect: { value: [true, true, 'undefined', 'undefined'] },
    docker: { value: [true, true, 'object', 'object'] },
  },
  {
    name: 'errors of an unknown tool and of bad arguments',
    cite: 'vm2 #138: host exceptions from the bridge itself (ENOSYS, EINVAL)',
    code: `
      const out = []
      for (const attempt of [() => tools.no_such_tool({}), () => tools.echo({ n: 1n }), () => tools.echo(() => 1)]) {
        try { await attempt(); out.push('resolved') } catch (e) { out.push([e.code, ${reach('e')}]) }
      }
      return out`,
    expect: {
      value: [
        ['ENOSYS', 'undefined'],
        ['EINVAL', 'undefined'],
        ['EINVAL', 'undefined'],
      ],
    },
    docker: {
      value: [
        ['ENOSYS', 'object'],
        ['EINVAL', 'object'],
        ['EINVAL', 'object'],
      ],
    },
  },
  {
    name: 'AggregateError of several failed calls',
    cite: 'vm2 ATTACKS.md "sanitize every caught value incl. AggregateError / cause"; CVE-2026-47686',
    code: `
      try { await Promise.any([tools.fail({}), tools.fail({})]) } catch (e) {
        return [e.constructor.name, e.errors.length, ...e.errors.map((x) => ${reach('x')}), typeof e.cause]
      }
      return 'resolved'`,
    expect: { value: ['AggregateError', 2, 'undefined', 'undefined', 'undefined'] },
    docker: { value: ['AggregateError', 2, 'object', 'object', 'undefined'] },
  },
  {
    name: 'Error.prepareStackTrace and CallSite.getThis around a tool call',
    cite: 'CVE-2022-36067 "SandBreak": prepareStackTrace received CallSites whose getThis() were host objects',
    code: `
      const seen = []
      Error.prepareStackTrace = (err, frames) => {
        for (const f of frames) {
          const self = f.getThis(), fn = f.getFunction()
          seen.push([String(f.getFileName()), self == null ? 'none' : ${reach('self')}, fn == null ? 'none' : ${reach('fn')}])
        }
        return 'custom'
      }
      let stack = ''
      try { await tools.fail({}) } catch (e) { stack = e.stack }
      const own = new Error('here').stack
      const hostFrame = seen.some(([file, self, fn]) => file.startsWith('/') || file.startsWith('node:') || (self !== 'none' && self !== 'undefined') || (fn !== 'none' && fn !== 'undefined'))
      return [stack, own, seen.length > 0, hostFrame]`,
    expect: { value: ['custom', 'custom', true, false] },
    // A container's frames are the container's files (no host path, no host object).
    docker: { value: ['custom', 'custom', true, true] },
  },
  {
    name: 'prepareStackTrace on an error raised by an async host answer',
    cite: 'CVE-2023-29017: host objects passed to prepareStackTrace for async errors',
    code: `
      let leaked = 'nothing'
      Error.prepareStackTrace = (err, frames) => {
        for (const f of frames) { const s = f.getThis(); if (s && typeof s === 'object' && typeof s.constructor?.constructor?.('return process')() === 'object') leaked = 'host' }
        return 'x'
      }
      const results = await Promise.allSettled([tools.fail({}), tools.no_such({}), tools.echo({ a: 1n })])
      for (const r of results) if (r.status === 'rejected') void r.reason.stack
      return [results.map((r) => r.status), leaked]`,
    expect: { value: [['rejected', 'rejected', 'rejected'], 'nothing'] },
    docker: { value: [['rejected', 'rejected', 'rejected'], 'nothing'] },
  },
  {
    name: 'stack text of a ToolCallError names no host path',
    cite: 'vm2 GHSA-v27g: CallSite and stack text leaked host file paths',
    code: `const HOST_DIR = ${JSON.stringify(process.cwd())}
      try { await tools.fail({}) } catch (e) { return [String(e.stack).includes(HOST_DIR), String(e.stack).includes('node_modules')] }
      return 'not thrown'`,
    expect: { value: [false, false] },
  },
  {
    name: 'globals inventory: only the language, nothing of the host',
    cite: 'notes B3 #1-#2: no process, require, module, Buffer, timers, fetch in the isolate',
    code: `
      const hostNames = ['process', 'require', 'module', 'exports', 'Buffer', 'global', '__dirname', '__filename',
        'setImmediate', 'fetch', 'performance', 'crypto', 'navigator', 'importScripts', 'Deno', 'Bun']
      return hostNames.filter((n) => typeof globalThis[n] !== 'undefined')`,
    // setTimeout, queueMicrotask, structuredClone … are the sandbox's own now (guest/globals.ts).
    expect: { value: [] },
    docker: {
      value: ['process', 'require', 'Buffer', 'global', 'setImmediate', 'fetch', 'performance', 'crypto'],
    },
  },
  {
    name: 'no isolated-vm object or bridge internal anywhere in reach',
    cite: 'isolated-vm README SECURITY: never leak a Reference/ExternalCopy/Callback; GHSA-2cm2 (globalThis[computed])',
    code: `
      const bad = /^(Reference|ExternalCopy|Callback|Isolate|NativeModule)$/
      const found = []
      const visit = (obj, path, depth) => {
        if (depth > 2 || obj === null || (typeof obj !== 'object' && typeof obj !== 'function')) return
        for (const key of Reflect.ownKeys(obj)) {
          let v
          try { v = obj[key] } catch { continue }
          const label = path + '.' + String(key)
          if (typeof key === 'string' && (bad.test(key) || /ivm|isolated|hostCall|codeact/i.test(key))) found.push(label)
          if (typeof v === 'function' && typeof v.name === 'string' && bad.test(v.name)) found.push(label + '()')
          if (typeof key === 'string' && key !== 'constructor') visit(v, label, depth + 1)
        }
      }
      visit(globalThis, 'globalThis', 0)
      return [found, typeof $0, typeof $2, typeof hostCall, typeof send, typeof ivm]`,
    expect: { value: [[], 'undefined', 'undefined', 'undefined', 'undefined', 'undefined'] },
  },
  {
    name: 'dynamic import of node:fs and node:child_process',
    cite: 'notes B3 #12; vm2 CVE-2026-47140 (a denylist missed modules): no host module resolution',
    code: `
      const HOST_FILE = ${HOST_FILE_TEXT}
      const out = []
      for (const spec of ['node:fs', 'fs', 'node:child_process', HOST_FILE]) {
        try {
          const m = await import(spec)
          out.push(typeof m.existsSync === 'function' && m.existsSync(HOST_FILE) ? 'host' : 'container')
        } catch { out.push('rejected') }
      }
      return out`,
    expect: { value: ['rejected', 'rejected', 'rejected', 'rejected'] },
    // The container's own modules load; the host's files are not there.
    docker: { value: ['container', 'container', 'container', 'rejected'] },
  },
  {
    name: 'require, module.require and process.binding',
    cite: 'vm2 CVE-2023-29199 family: any route to require("child_process")',
    code: `
      const HOST_FILE = ${HOST_FILE_TEXT}
      const out = []
      for (const attempt of [
        () => require('fs').existsSync(HOST_FILE),
        () => module.require('fs'),
        () => Function('return process')().binding('spawn_sync'),
        () => Function('return process')().mainModule.require('fs'),
      ]) {
        try { out.push(attempt() === false ? 'container' : 'returned') } catch (e) { out.push(e.name) }
      }
      return out`,
    expect: { value: ['ReferenceError', 'ReferenceError', 'ReferenceError', 'ReferenceError'] },
    // process.binding is refused by the runner's permission model (images/Dockerfile).
    docker: { value: ['container', 'ReferenceError', 'Error', 'TypeError'] },
  },
  {
    name: 'indirect eval and new Function see the same empty realm',
    cite: 'vm2 GHSA-wp5r: a transformer bypass through eval / unicode escapes',
    code: `return [(0, eval)('typeof process'), new Function('return typeof requir\\u0065')(), eval('typeof \\u0070rocess')]`,
    expect: { value: ['undefined', 'undefined', 'undefined'] },
    docker: { value: ['object', 'function', 'object'] },
  },
  {
    name: "the host's secret environment variable is out of reach",
    cite: 'notes 0 (nothing of the host crosses): process.env, /proc/self/environ, /proc/1/environ',
    code: `
      const env = typeof process === 'object' ? process.env : {}
      let text = ''
      try {
        const fs = await import('node:fs')
        for (const f of ['/proc/self/environ', '/proc/1/environ', '/proc/' + process.ppid + '/environ']) {
          try { text += fs.readFileSync(f, 'latin1') } catch {}
        }
      } catch {}
      return [Object.keys(env).filter((k) => k.includes('CODEACT_CORPUS')), text.includes('CODEACT_CORPUS')]`,
    expect: { value: [[], false] },
  },
  {
    name: 'a custom inspect function on a logged value is never called',
    cite: 'CVE-2023-32313 (inspect.custom + Proxy reached host inspect) and CVE-2023-37903 (WebAssembly.compileStreaming)',
    code: `
      let called = false
      const bait = { [Symbol.for('nodejs.util.inspect.custom')]: () => { called = true; return 'x' } }
      console.log(bait)
      console.log(new Proxy(bait, {}))
      try { await WebAssembly.compileStreaming(bait) } catch {}
      return called`,
    expect: { value: false },
  },
  {
    name: 'a logged Proxy whose traps throw or lie',
    cite: 'CVE-2023-32314: a Proxy spec quirk made the host create an object for the sandbox',
    code: `
      const liar = new Proxy({}, { ownKeys() { throw new Error('trap') }, get() { throw new Error('trap') } })
      console.log(liar)
      console.log(new Proxy([], { get(t, k) { return k === 'length' ? 1e9 : 'x' } }))
      return 'survived'`,
    expect: { value: 'survived' },
    check: (r) => {
      if (!r.logs.some((l) => l.text === '[unprintable value]')) throw new Error('the throwing Proxy was not reported as unprintable')
    },
  },
]
