/**
 * The guest's URL against Node's own, inside a real isolate and a real container: a corpus of IDNA, IPv4
 * number forms, IPv6 compression, percent-encode sets, relative resolution and the standard's edge cases,
 * compared field by field with Node's URL in this process. The guest's parser is hand-written
 * (guest/url.ts); where it differs, the input is listed with the reason, and nothing else may differ.
 */
import { expect, it } from 'vitest'
import { eachBackend } from './backends.js'
import { gapKey, KNOWN_GAPS, URL_CORPUS } from './fixtures/url-corpus.js'

const FIELDS = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'] as const

/** The same function, as text for the program and as code for Node: one parse, every field or the error's kind. */
function parseAll(cases: readonly (readonly [string, string?])[], fields: readonly string[]): unknown[] {
  return cases.map(([input, base]) => {
    try {
      const u = base === undefined ? new URL(input) : new URL(input, base)
      const o: Record<string, unknown> = {}
      for (const f of fields) o[f] = (u as unknown as Record<string, unknown>)[f]
      return o
    } catch (e) {
      return { error: e instanceof TypeError ? 'TypeError' : String(e) }
    }
  })
}
const PARSE_ALL = `(${parseAll.toString()})`

eachBackend('guest URL', (run) => {
  it('parses the corpus as Node does, field by field, except the listed gaps', async () => {
    const { value } = await run(`return ${PARSE_ALL}(${JSON.stringify(URL_CORPUS)}, ${JSON.stringify(FIELDS)})`)
    const want = parseAll(URL_CORPUS, FIELDS)
    const got = value as unknown[]
    expect(got).toHaveLength(URL_CORPUS.length)
    const differ = URL_CORPUS.filter((_, i) => JSON.stringify(got[i]) !== JSON.stringify(want[i])).map(gapKey)
    expect(
      differ.filter((k) => !KNOWN_GAPS.has(k)),
      'differs from Node and is not a listed gap',
    ).toEqual([])
    expect(
      [...KNOWN_GAPS.keys()].filter((k) => !differ.includes(k)),
      'a listed gap that agrees with Node now: remove it',
    ).toEqual([])
  })

  it('the gaps as a program meets them: a Unicode host kept (ASCII letters lowercased), a hex IPv4 kept as a name', async () => {
    const { value } = await run(
      `return [new URL('http://MÜNCHEN.de/').host, new URL('http://0x7f.1/').host, new URL('http://[::1]:8080/').host]`,
    )
    expect(value).toEqual(['mÜnchen.de', '0x7f.1', '[::1]:8080'])
  })

  it('URLSearchParams: parsing, encoding, sorting and the live link to its URL', async () => {
    const body = `
      const u = new URL('http://x/?b=2&a=1&a=%20one+two&c=%F0%9F%98%80')
      const p = u.searchParams
      const read = [p.get('a'), p.getAll('a'), p.get('c'), p.has('b'), p.size, [...p.keys()]]
      p.append('d', 'é & = +')
      p.sort()
      const afterSort = u.search
      p.delete('a')
      const own = new URLSearchParams({ q: 'a b', r: '~*' })
      const pairs = new URLSearchParams([['x', '1'], ['x', '2']])
      return [read, afterSort, u.href, own.toString(), pairs.getAll('x'), String(new URLSearchParams('?%zz=%4'))]`
    const { value } = await run(body)
    const u = new URL('http://x/?b=2&a=1&a=%20one+two&c=%F0%9F%98%80')
    const p = u.searchParams
    const read = [p.get('a'), p.getAll('a'), p.get('c'), p.has('b'), p.size, [...p.keys()]]
    p.append('d', 'é & = +')
    p.sort()
    const afterSort = u.search
    p.delete('a')
    const want = [
      read,
      afterSort,
      u.href,
      new URLSearchParams({ q: 'a b', r: '~*' }).toString(),
      new URLSearchParams([
        ['x', '1'],
        ['x', '2'],
      ]).getAll('x'),
      String(new URLSearchParams('?%zz=%4')),
    ]
    expect(value).toEqual(want)
  })

  it('URL objects belong to the program: setters, toJSON, instanceof, canParse, an error a program can read', async () => {
    const { value } = await run(`
      const u = new URL('http://a.example/p?q#h')
      u.hostname = 'b.example'; u.port = '8080'; u.pathname = '/x y'; u.hash = ''
      let err
      try { new URL('http://[::1') } catch (e) { err = [e instanceof TypeError, e.name] }
      return [u.href, JSON.stringify({ u }), u instanceof URL, URL.canParse('http://x'), URL.canParse('nope'), err, String(u) === u.href]`)
    expect(value).toEqual([
      'http://b.example:8080/x%20y?q',
      '{"u":"http://b.example:8080/x%20y?q"}',
      true,
      true,
      false,
      [true, 'TypeError'],
      true,
    ])
  })
})
