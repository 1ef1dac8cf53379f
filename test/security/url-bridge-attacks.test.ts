/**
 * The sandbox's URL is the host's parser behind two synchronous, pure bridge functions (guest/url.ts,
 * sandbox/url-host.ts). Attacked here as a program would, in a real isolate and a real container: poisoned
 * prototypes, JSON and Symbol before any URL; a hunt for the bridge functions through the globals, closures,
 * `caller` and stack frames; inputs of 1.4 MB and 16 MB and an href that grows past the limit; URLs racing
 * with tool calls; and (isolate) a URL built while the verdict gate holds the program's calls.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import { verdictTiming } from '../../runtime/typecheck.js'
import type { AnyToolDefinition } from '../../vocabulary/types.js'
import { MAX_URL_CHARS } from '../../guest/limits.js'
import { eachBackend } from '../guest/backends.js'

const INPUTS: [string, string?][] = [
  ['http://MÜNCHEN.de/a b?x=1 2#h'],
  ['../g?q=1', 'http://a/b/c/d'],
  ['http://0x7f.1/'],
  ['http://[1:0::0:2]:81/p'],
  ['file:///C|/x'],
]

/** What a program reads of each input, built without the array methods a poisoned program breaks. */
function readUrls(inputs: [string, string?][]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (let i = 0; i < inputs.length; i++) {
    const pair = inputs[i]!
    const u = pair[1] === undefined ? new URL(pair[0]) : new URL(pair[0], pair[1])
    u.searchParams.append('k', 'v é')
    out[`r${i}`] = `${u.href} ${u.host} ${u.origin} ${u.search} ${u.searchParams.get('k')} ${URL.canParse(pair[0], pair[1])}`
  }
  out['bad'] = URL.parse('http://[::1') === null
  return out
}
const READ_URLS = `(${readUrls.toString()})`

/** Every function reachable from the globals and the URL classes, by own properties, getters and setters. */
type AnyFunction = (...args: never) => unknown

function reachableFunctions(roots: unknown[]): AnyFunction[] {
  const seen = new Set<unknown>()
  const found: AnyFunction[] = []
  const queue = roots.slice()
  for (let next = 0; next < queue.length && seen.size < 20000; next++) {
    const v = queue[next]
    if ((typeof v !== 'object' && typeof v !== 'function') || v === null || seen.has(v)) continue
    seen.add(v)
    if (typeof v === 'function') found.push(v as AnyFunction)
    queue.push(Object.getPrototypeOf(v))
    for (const key of Reflect.ownKeys(v as object)) {
      const d = Object.getOwnPropertyDescriptor(v, key)
      if (d) queue.push(d.value, d.get, d.set)
    }
  }
  return found
}

eachBackend('URL bridge attacks', (run) => {
  it('poisoned Array, String, Object, JSON and Symbol before the first URL: the answers are still Node’s', async () => {
    const { value } = await run(`
      const keys = ['href', 'search', 'host', 'failure', 'then', 'length', 'origin', 'setQuery', 'changed']
      const stringMethods = ['slice', 'indexOf', 'charCodeAt', 'toLowerCase', 'startsWith', 'toWellFormed']
      Array.prototype.push = function () { throw new Error('push') }
      Object.defineProperty(Array.prototype, '0', { get() { return 'poison' }, set() { throw new Error('index') }, configurable: true })
      for (let i = 0; i < stringMethods.length; i++) String.prototype[stringMethods[i]] = () => 'poison'
      for (let i = 0; i < keys.length; i++)
        Object.defineProperty(Object.prototype, keys[i], { get() { return 'poison' }, set() {}, configurable: true })
      JSON.parse = () => ({ href: 'poison' })
      JSON.stringify = () => '"poison"'
      const iterator = Symbol.iterator
      Array.prototype[iterator] = function* () { yield 'poison' }
      globalThis.Symbol = function () { return 'poison' }
      Function.prototype.call = Function.prototype.apply = () => 'poison'
      let out
      try { out = ${READ_URLS}(${JSON.stringify(INPUTS)}) } catch (e) { out = { threw: String(e && e.message) } }
      delete Array.prototype[0]
      for (let i = 0; i < keys.length; i++) delete Object.prototype[keys[i]]
      return out`)
    expect(value).toEqual(readUrls(INPUTS))
  })

  it('the bridge functions are out of reach: globals, closures, caller and stack frames hand out none', async () => {
    const { value } = await run(`
      // The globals, less what a container's realm gets of Node (process.exit would end the runner).
      const roots = [URL, URLSearchParams, new URL('http://a/?b=1'), new URL('http://a/').searchParams]
      for (const name of Reflect.ownKeys(globalThis))
        if (!['process', 'require', 'global', 'globalThis', 'fetch', 'module'].includes(name)) roots.push(globalThis[name])
      const fns = ${reachableFunctions.toString()}(roots)
      // Through caller: a sloppy toString (the program itself is strict) called by the URL code.
      const sloppy = Function('return function f() { f.seen = [f.caller, arguments.callee.caller]; return "http://a/" }')()
      new URL({ toString: sloppy })
      const viaCaller = sloppy.seen
      // Through stack frames: CallSite objects of the guest's frames.
      const viaStack = []
      Error.prepareStackTrace = (e, sites) => { for (const s of sites) viaStack.push(s.getFunction(), s.getThis()); return '' }
      for (const input of [{ toString() { throw new Error('inside') } }, 'not a url']) {
        try { new URL(input) } catch (e) { void e.stack }
        try { new URL('http://a/').href = input } catch (e) { void e.stack }
      }
      Error.prepareStackTrace = undefined
      const candidates = fns.concat(viaCaller, viaStack).filter((f) => typeof f === 'function')
      // A bridge function answers a URL's record as JSON text; nothing the program can reach does.
      const leaks = []
      for (const f of candidates) {
        if (f === eval || f === Function) continue
        for (const args of [['http://a/'], ['http://a/', 'hash', 'x']]) {
          try {
            const r = f(...args)
            if (r !== null && typeof r === 'object' && typeof r.then === 'function') r.then(undefined, () => {})
            if (typeof r === 'string' && r.includes('"href"')) leaks.push(String(f).slice(0, 80))
          } catch {}
        }
      }
      return { walked: fns.length, leaks, callers: viaCaller.length, frames: viaStack.length, toStringShowsNoBridge: !String(URL).includes('native code') }`)
    const v = value as { walked: number; leaks: string[]; callers: number; frames: number; toStringShowsNoBridge: boolean }
    expect(v.leaks).toEqual([])
    expect(v.callers).toBe(2)
    expect(v.frames).toBeGreaterThan(0)
    expect(v.walked).toBeGreaterThan(100)
    expect(v.toStringShowsNoBridge).toBe(true)
  })

  it('a 1.4 MB URL parses; a 16 MB one and an href grown past the limit are refused naming MAX_URL_CHARS', async () => {
    const { value } = await run(`
      const big = new URL('https://example.com/' + 'a/'.repeat(200000) + '?q=' + 'x'.repeat(1000000))
      const refusals = []
      const huge = 'https://e.com/' + 'a'.repeat(16 * 1024 * 1024)
      for (const f of [() => new URL(huge), () => new URL('/x', huge), () => URL.canParse(huge), () => URL.parse(huge),
        () => { new URL('https://e.com/').hash = huge }, () => new URL('https://e.com/' + 'é'.repeat(400000))]) {
        try { f(); refusals.push('accepted') } catch (e) { refusals.push(e.name + ': ' + e.message) }
      }
      return { big: [big.pathname.length, big.search.length], refusals, after: new URL('http://ok/x').href }`)
    const v = value as { big: number[]; refusals: string[]; after: string }
    expect(v.big).toEqual([400001, 1000003])
    expect(v.refusals).toHaveLength(6)
    for (const r of v.refusals)
      expect(r).toMatch(new RegExp(`^TypeError: URL too long: \\d+ characters; .*at most ${MAX_URL_CHARS} \\(MAX_URL_CHARS\\)`))
    expect(v.after).toBe('http://ok/x')
  })

  it('URLs racing with tool calls: every call answered, every URL Node’s', async () => {
    const race = (echo: (a: { i: number; u: string }) => Promise<{ i: number; u: string }>) =>
      Promise.all(
        Array.from({ length: 200 }, (_, i) => echo({ i, u: new URL(`http://H${i}.exämple/ä?q=${i}`).href })).map(async (p, i) => {
          const r = await p
          const u = new URL(`../${r.i}`, r.u)
          u.searchParams.append('n', String(i))
          return u.href
        }),
      )
    const { value } = await run(`return (${race.toString()})((a) => tools.echo(a))`)
    expect(value).toEqual(await race(async (a) => a))
  })
})

describe('isolate: a URL built while the verdict gate holds the program', () => {
  const call: AnyToolDefinition = {
    name: 'call',
    description: 'Answers at once.',
    parameters: { type: 'object', properties: {} },
    execute: async () => 'answered',
  }
  let rt: Runtime
  beforeAll(async () => {
    rt = await createRuntime({ typecheck: 'error', typecheckBudgetMs: 60_000, tools: [call] })
    expect((await rt.runCode('return await tools.call({})')).error).toBeNull()
  }, 60_000)
  afterAll(async () => {
    await rt?.close()
  })
  afterEach(() => {
    verdictTiming.delayMs = undefined
  })

  it('parses before, during and after the hold as Node does', async () => {
    verdictTiming.delayMs = 1500
    const r = await rt.runCode(`const held = tools.call({})
const during = new URL('http://MÜNCHEN.de/a?x=1')
during.searchParams.append('y', '2')
const answer = await held
return [during.href, answer, new URL('../b', during).href]`)
    expect(r.error, r.observation).toBeNull()
    const during = new URL('http://MÜNCHEN.de/a?x=1')
    during.searchParams.append('y', '2')
    expect(r.value).toEqual([during.href, 'answered', new URL('../b', during).href])
  }, 60_000)
})
