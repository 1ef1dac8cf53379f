/** The containers Docker runs for a session, by the label the backend puts on them (the realm id: `caller:id`, or the id). */
async function sessionContainers(id: string): Promise<string[]> {
  const list = await new Docker().listContainers({ all: true, filters: { label: ['codeact.session'] } })
  return list.filter((c) => c.Labels['codeact.session'] === id || c.Labels['codeact.session']?.endsWith(`:${id}`)).map((c) => c.Id)
}

/**
 * `codeact repl --sandbox docker` through a real pseudo-terminal: the session is one container kept between
 * inputs, so a live object made in one input (a Map, a closure) is there in the next; Ctrl-C cancels a
 * runaway program without ending the REPL; leaving removes the session's container.
 */
import Docker from 'dockerode'
import { describe, expect, it } from 'vitest'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'
import { hasScript, startRepl, tempDir } from './repl-pty.js'

describe.skipIf(!hasScript || !dockerEngine.available)('codeact repl --sandbox docker', () => {
  it('keeps live state in the session container across inputs, cancels on Ctrl-C, and cleans up on exit', async () => {
    await ensureImage()
    const dir = tempDir('codeact-repl-docker-')
    const args = ['--sandbox', 'docker', '--docker-pool-size', '0', '--tools', 'examples/tools.ts', '--log', `${dir}/repl.jsonl`]
    const r = startRepl(args, { CODEACT_REPL_HISTORY: `${dir}/history` })
    const id = /session (\S+), logged to/.exec(await r.waitFor('> '))![1]!
    r.type('const seen = new Map<string, number>()\r')
    await r.waitFor('> ', 120_000)
    // One container for this session, kept between inputs.
    const container = await sessionContainers(id)
    expect(container).toHaveLength(1)
    r.type('function remember(shop: string, net: number) {\r')
    await r.waitFor('... ')
    r.type('  seen.set(shop, net)\r')
    await r.waitFor('... ')
    r.type('  return seen.size\r')
    await r.waitFor('... ')
    r.type('}\r')
    await r.waitFor('> ')
    r.type("remember('berlin-electro', (await tools.lookup_price({ shop: 'berlin-electro', product: 'laptop' })).net)\r")
    await r.waitFor(/Return value:\n1\n/)
    expect(await sessionContainers(id)).toEqual(container)
    r.type('console.log("spinning"); await new Promise((go) => setTimeout(go, 10)); while (true) {}\r')
    await r.waitFor(/spinning\n/)
    r.type('\x03')
    await r.waitFor('Error (aborted)')
    await r.waitFor('> ')
    // What the session held before the cancelled run is still there (kept, or restored by replay).
    r.type('[...seen.entries()]\r')
    await r.waitFor(/Return value:\n\[\["berlin-electro",1149\]\]\n/, 120_000)
    r.type('\x04')
    expect(await r.exited).toBe(0)
    expect(await sessionContainers(id)).toEqual([])
  }, 300_000)
})
