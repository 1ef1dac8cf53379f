/**
 * What a program's console prints and how its values are cloned, inside a real isolate and a real
 * container: Node's `util.inspect` layout for the values a model logs, printf directives, and a
 * `structuredClone` whose copies belong to the program's realm.
 */
import { formatWithOptions } from 'node:util'
import { expect, it } from 'vitest'
import { eachBackend } from './backends.js'

/** Values whose rendering matches Node's util.format exactly (as console.log prints them). */
const AS_NODE = [
  `'text', 1, -0, 10n, true, null, undefined`,
  `[1, 'two', [3, [4]]]`,
  `{ a: 1, 'b-c': 'x', nested: { deep: { deeper: 1 } } }`,
  `new Map([['k', 1], [2, { v: true }]])`,
  `new Set([1, 'a', [2]])`,
  `new Date(0)`,
  `/re+/gi`,
  `new Uint8Array([1, 2, 3])`,
  `Object.assign(Object.create(null), { x: 1 })`,
  `'%s is %d years and %i days, %f%%', 'Ann', 42.5, 7.9, 1.5`,
  `'%j', { a: [1] }`,
  `'%O', { b: 2 }`,
  `new (class Point { constructor() { this.x = 1; this.y = 2 } })()`,
  `[ , 1, , , 2]`,
  `Array.from({ length: 6 }, (_, i) => 'item' + i)`,
  `'a\\nb', ['a\\nb', 'tab\\t']`,
  `Symbol('s'), function named() {}, async () => {}, class K {}`,
]

eachBackend('guest rendering and clone', (run) => {
  it("console lines match Node's util.format for the values a model logs", async () => {
    const body = AS_NODE.map((args) => `console.log(${args})`).join('\n')
    const { logs } = await run(body)
    // The same argument lists, evaluated here as the program did.
    const want = AS_NODE.map((args) => formatWithOptions({}, ...(0, eval)(`[${args}]`)))
    expect(logs).toEqual(want)
  })

  it('where the guest chooses otherwise than Node: four levels deep, one entry per line, single quotes', async () => {
    const { logs } = await run(`
      console.log({ a: { b: { c: { d: { e: { f: 1 } } } } } })
      console.log(Array.from({ length: 120 }, (_, i) => i))
      console.log(["it's"])`)
    // Four levels before [Object] (Node: two): a model reading a tool's nested answer sees its shape.
    expect(logs[0]).toBe('{ a: { b: { c: { d: { e: [Object] } } } } }')
    // One entry per line, the first 100 and a count (Node packs numbers into columns).
    expect(logs[1]!.split('\n')).toEqual(['[', ...Array.from({ length: 100 }, (_, i) => `  ${i},`), '  ... 20 more items', ']'])
    expect(logs[2]).toBe("[ 'it\\'s' ]")
  })

  it('cycles, errors and a capped depth render as Node renders them, without throwing', async () => {
    const { logs } = await run(`
      const a = { name: 'a' }; a.self = a; a.list = [a]
      console.log(a)
      const e = new RangeError('bad'); e.code = 'E_BAD'
      console.log({ e })
      console.log('%c styled', 'color: red')
      console.log({ get g() { return 1 }, set s(v) {} })`)
    expect(logs[0]).toBe("<ref *1> { name: 'a', self: [Circular *1], list: [ [Circular *1] ] }")
    expect(logs[1]).toBe("{ e: [RangeError: bad] { code: 'E_BAD' } }")
    expect(logs[2]).toBe(' styled')
    expect(logs[3]).toBe('{ g: [Getter], s: [Setter] }')
  })

  it('structuredClone copies into the program realm, keeps cycles, refuses what cannot be cloned', async () => {
    const { value } = await run(`
      const d = new Date(5), m = new Map([[1, { x: [1] }]]), s = new Set(['a']), r = /x/g, u = new Uint16Array([1, 65535])
      const cyc = { d, m, s, r, u }; cyc.self = cyc
      const c = structuredClone(cyc)
      const e = structuredClone(new TypeError('t', { cause: { why: 1 } }))
      const refused = []
      for (const v of [() => 1, Symbol('s'), new WeakMap(), Promise.resolve(1)]) {
        try { structuredClone(v) } catch (err) { refused.push(err.name) }
      }
      return [
        c !== cyc, c.self === c, c.d instanceof Date, c.d.getTime(), c.m instanceof Map, c.m.get(1).x[0], c.m.get(1) !== m.get(1),
        c.s.has('a'), c.r instanceof RegExp, String(c.r), c.u instanceof Uint16Array, [...c.u], c.u.buffer !== u.buffer,
        e instanceof TypeError, e.message, e.cause.why, refused,
      ]`)
    expect(value).toEqual([
      true,
      true,
      true,
      5,
      true,
      1,
      true,
      true,
      true,
      '/x/g',
      true,
      [1, 65535],
      true,
      true,
      't',
      1,
      ['DataCloneError', 'DataCloneError', 'DataCloneError', 'DataCloneError'],
    ])
  })

  it('TextEncoder, TextDecoder and base64 round-trip in the program realm', async () => {
    const { value } = await run(`
      const bytes = new TextEncoder().encode('héllo \\u{1F600}')
      const text = new TextDecoder().decode(bytes)
      let fatal
      try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])) } catch (e) { fatal = e.name }
      return [bytes instanceof Uint8Array, [...bytes].length, text, fatal, btoa('hi!'), atob('aGkh'), new TextDecoder().decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))]`)
    expect(value).toEqual([true, 11, 'héllo \u{1F600}', 'TypeError', 'aGkh', 'hi!', 'A'])
  })
})
