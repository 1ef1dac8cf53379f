/**
 * The guest's URL against Node's own, inside a real isolate and a real container: a corpus of IDNA, IPv4
 * number forms, IPv6 compression, percent-encode sets, relative resolution, file: and opaque paths, the
 * setters and URLSearchParams' serialisation, compared field by field with Node's URL in this process. The
 * sandbox's URL is the host's parser behind a bridge (guest/url.ts, sandbox/url-host.ts): any difference fails.
 */
import { expect, it } from 'vitest'
import { eachBackend } from './backends.js'
import { PARAMS_CASES, URL_CORPUS, URL_SETTERS } from './fixtures/url-corpus.js'

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

/** Each setter case: the fields after the assignment, or the error's kind. */
function setAll(cases: readonly (readonly [string, string, string])[], fields: readonly string[]): unknown[] {
  return cases.map(([href, field, value]) => {
    const u = new URL(href) as unknown as Record<string, unknown>
    try {
      u[field] = value
    } catch (e) {
      return { error: e instanceof TypeError ? 'TypeError' : String(e) }
    }
    const o: Record<string, unknown> = {}
    for (const f of fields) o[f] = u[f]
    return o
  })
}
const SET_ALL = `(${setAll.toString()})`

/** Each params case: the pairs and serialisation, then the live link's effect on a URL. */
function paramsAll(cases: readonly (readonly [string, readonly (readonly [string, string])[]])[]): unknown[] {
  return cases.map(([init, append]) => {
    const p = new URLSearchParams(init)
    const u = new URL('sc:opaque  ?' + init)
    for (const [k, v] of append) {
      p.append(k, v)
      u.searchParams.append(k, v)
    }
    const pairs = [...p]
    u.searchParams.sort()
    const sorted = u.search
    for (const [k] of pairs) u.searchParams.delete(k)
    return [pairs, p.toString(), String(p.size), sorted, u.href]
  })
}
const PARAMS_ALL = `(${paramsAll.toString()})`

/** Where `got` and `want` differ, as `label: got ≠ want` lines (empty when they agree). */
function differences(labels: readonly unknown[], got: unknown[], want: unknown[]): string[] {
  return labels.flatMap((label, i) =>
    JSON.stringify(got[i]) === JSON.stringify(want[i])
      ? []
      : [`${JSON.stringify(label)}: ${JSON.stringify(got[i])} ≠ ${JSON.stringify(want[i])}`],
  )
}

eachBackend('guest URL', (run) => {
  it('parses the corpus as Node does, field by field, with no exception', async () => {
    const { value } = await run(`return ${PARSE_ALL}(${JSON.stringify(URL_CORPUS)}, ${JSON.stringify(FIELDS)})`)
    const got = value as unknown[]
    expect(got).toHaveLength(URL_CORPUS.length)
    expect(differences(URL_CORPUS, got, parseAll(URL_CORPUS, FIELDS)), 'differs from Node').toEqual([])
  })

  it('every setter, the invalid values included, lands where Node lands', async () => {
    const { value } = await run(`return ${SET_ALL}(${JSON.stringify(URL_SETTERS)}, ${JSON.stringify(FIELDS)})`)
    expect(differences(URL_SETTERS, value as unknown[], setAll(URL_SETTERS, FIELDS)), 'differs from Node').toEqual([])
  })

  it("URLSearchParams serialises as Node's: + and %20, unpaired surrogates, the live link", async () => {
    const { value } = await run(`return ${PARAMS_ALL}(${JSON.stringify(PARAMS_CASES)})`)
    expect(differences(PARAMS_CASES, value as unknown[], paramsAll(PARAMS_CASES)), 'differs from Node').toEqual([])
  })

  it('a Unicode host, a hex IPv4 and IPv6 as a program meets them', async () => {
    const { value } = await run(
      `return [new URL('http://MÜNCHEN.de/').host, new URL('http://0x7f.1/').host, new URL('http://[0:0::1]:8080/').host]`,
    )
    expect(value).toEqual(['xn--mnchen-3ya.de', '127.0.0.1', '[::1]:8080'])
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
