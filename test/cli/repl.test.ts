/**
 * `codeact repl` as a person uses it, through a real pseudo-terminal: inputs that span lines, bindings that
 * live from one input to the next (one session), a type error that leaves the REPL alive, `.sdk`, `.reset`,
 * Ctrl-C cancelling a runaway program (not the REPL), history kept across two REPL processes, and the ways
 * out (Ctrl-D, `.exit`, Ctrl-C twice). Piped input works too, without prompts.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { hasScript, startRepl, tempDir } from './repl-pty.js'

const TOOLS = ['--tools', 'examples/tools.ts']
/** Each test keeps its history in a file of its own, never in the user's home. */
const history = (): string => join(tempDir('codeact-repl-'), 'history')

describe.skipIf(!hasScript)('codeact repl on a terminal', () => {
  it('continues an unfinished input on "..." lines, and keeps bindings from one input to the next', async () => {
    const r = startRepl(TOOLS, { CODEACT_REPL_HISTORY: history() })
    await r.waitFor('> ')
    // A function typed over three lines: the open brace and the open call keep the input going.
    r.type('function gross(net: number, vat: number) {\r')
    await r.waitFor('... ')
    r.type('  return Math.round(net * (1 + vat))\r')
    await r.waitFor('... ')
    r.type('}\r')
    // Defining a function runs nothing and reports nothing: the prompt comes straight back.
    expect(await r.waitFor('> ')).toMatch(/\.\.\. }\n(\d+\.\d s · (0 calls|type-checking…))*> $/)
    r.type('const shops = await tools.list_shops({})\r')
    await r.waitFor('> ')
    // Both bindings are the next input's: a function and a tool's answer.
    r.type('shops.map((s) => s.shop + ":" + gross(100, 0.19)).join(" ")\r')
    const screen = await r.waitFor('berlin-electro:119 london-gadgets:119 tokyo-denki:119')
    expect(screen).not.toContain('Cannot find name')
    // A trailing operator continues too; the template's `${` holds a brace that is not a block.
    r.type('const line = `${shops.length} shops` +\r')
    await r.waitFor('... ')
    r.type('  " found"\r')
    await r.waitFor('> ')
    r.type('line\r')
    await r.waitFor('3 shops found')
    r.type('\x04')
    expect(await r.exited).toBe(0)
  })

  it('shows a type error, runs nothing of that input, and stays alive with its bindings', async () => {
    const r = startRepl(TOOLS, { CODEACT_REPL_HISTORY: history() })
    await r.waitFor('> ')
    r.type('let calls = 0\r')
    await r.waitFor('> ')
    // `car` is not a product: the checker knows the tool's enum and nothing runs (calls stays 0).
    r.type("calls++; await tools.lookup_price({ shop: 'berlin-electro', product: 'car' })\r")
    const screen = await r.waitFor('Error (type)')
    await r.waitFor('> ')
    expect(screen).toMatch(/"car"|'car'/)
    r.type('calls + 40\r')
    await r.waitFor(/Return value:\n40\n/)
    r.type('.exit\r')
    expect(await r.exited).toBe(0)
  })

  it('.sdk prints the tools and the bindings so far; .reset forgets the bindings', async () => {
    const r = startRepl(TOOLS, { CODEACT_REPL_HISTORY: history() })
    await r.waitFor('> ')
    r.type("const rates = await tools.lookup_rates({ base: 'EUR' })\r")
    await r.waitFor('> ')
    r.type('.sdk\r')
    const sdk = await r.waitFor('> ')
    expect(sdk).toContain('lookup_price(args: {')
    expect(sdk).toContain("This session's bindings:")
    expect(sdk).toMatch(/rates/)
    // Tab completes a binding and a tool's name.
    r.type('const usd = rat\t')
    await r.waitFor('const usd = rates')
    r.type('.EUR + (await tools.lookup_r\t')
    await r.waitFor('tools.lookup_rates')
    r.type("({ base: 'USD' })).USD\r")
    await r.waitFor('> ')
    r.type('usd\r')
    await r.waitFor(/Return value:\n2\n/)
    r.type('.reset\r')
    await r.waitFor('every binding is forgotten')
    r.type('rates.USD\r')
    await r.waitFor(/Cannot find name 'rates'/)
    r.type('.sdk\r')
    await r.waitFor('This session has no bindings yet.')
    r.type('\x04')
    expect(await r.exited).toBe(0)
  })

  it('Ctrl-C cancels a runaway program, the prompt returns, and the session keeps what it had', async () => {
    const r = startRepl(TOOLS, { CODEACT_REPL_HISTORY: history() })
    await r.waitFor('> ')
    r.type('const kept = new Map([["answer", 42]])\r')
    await r.waitFor('> ')
    // The program says it is running (a console line, live), then spins for ever: then Ctrl-C.
    r.type('let spins = 0; console.log("spinning"); await new Promise((go) => setTimeout(go, 10)); while (true) { spins++ }\r')
    await r.waitFor(/spinning\n/)
    r.type('\x03')
    await r.waitFor('Error (aborted): the run was aborted')
    await r.waitFor('> ')
    r.type('kept.get("answer")\r')
    await r.waitFor(/Return value:\n42\n/)
    // A program waiting on a timer is cancelled the same way.
    r.type('console.log("waiting"); await new Promise((resolve) => setTimeout(resolve, 600_000))\r')
    await r.waitFor(/waiting\n/)
    r.type('\x03')
    await r.waitFor('Error (aborted): the run was aborted')
    await r.waitFor('> ')
    // Ctrl-C right after Enter lands while the input is still being checked: it is cancelled all the same.
    r.type('while (true) {}\r\x03')
    await r.waitFor(/Error \(aborted\): the run was (aborted|cancelled before it started)/)
    await r.waitFor('> ')
    r.type('[...kept.keys()]\r')
    await r.waitFor(/Return value:\n\["answer"\]\n/)
    r.type('\x04')
    expect(await r.exited).toBe(0)
  })

  it('Ctrl-C drops an unfinished input; twice at an empty prompt leaves with status 0', async () => {
    const r = startRepl([], { CODEACT_REPL_HISTORY: history() })
    await r.waitFor('> ')
    r.type('const half = [1, 2,\r')
    await r.waitFor('... ')
    r.type('\x03')
    await r.waitFor('> ')
    // The dropped input left nothing behind: a fresh input parses on its own.
    r.type('6 * 7\r')
    await r.waitFor(/Return value:\n42\n/)
    r.type('\x03')
    await r.waitFor('To exit, press Ctrl+C again')
    r.type('\x03')
    expect(await r.exited).toBe(0)
  })

  it("keeps history across two REPL processes (Up recalls the earlier one's input)", async () => {
    const file = history()
    const first = startRepl([], { CODEACT_REPL_HISTORY: file })
    await first.waitFor('> ')
    first.type('const marker = 41 + 1\r')
    await first.waitFor('> ')
    first.type('marker\r')
    await first.waitFor(/Return value:\n42\n/)
    first.type('\x04')
    expect(await first.exited).toBe(0)
    expect(readFileSync(file, 'utf8')).toBe('const marker = 41 + 1\nmarker\n')

    const second = startRepl([], { CODEACT_REPL_HISTORY: file })
    await second.waitFor('> ')
    second.type('\x1b[A\x1b[A') // Up, Up
    await second.waitFor('const marker = 41 + 1')
    // Entered again, the recalled line moves to the newest place: the file holds no duplicates.
    second.type('\r')
    await second.waitFor('> ')
    second.type('marker * 2\r')
    await second.waitFor(/Return value:\n84\n/)
    second.type('\x04')
    expect(await second.exited).toBe(0)
    expect(readFileSync(file, 'utf8')).toBe('marker\nconst marker = 41 + 1\nmarker * 2\n')
  })

  it('with --log, a later REPL takes the session up again by its id (rebuilt from the log, no tool run twice)', async () => {
    const log = join(tempDir('codeact-repl-log-'), 'repl.jsonl')
    const first = startRepl([...TOOLS, '--log', log], { CODEACT_REPL_HISTORY: history() })
    await first.waitFor('> ')
    first.type("const rates = await tools.lookup_rates({ base: 'USD' })\r")
    await first.waitFor('> ')
    first.type('\x04')
    const resume = /resume it with --log \S+ --session (\S+)/.exec(await first.waitFor(/--session \S+\n/))
    expect(await first.exited).toBe(0)
    const id = resume![1]!

    const second = startRepl([...TOOLS, '--log', log, '--session', id], { CODEACT_REPL_HISTORY: history() })
    await second.waitFor(`session ${id}`)
    await second.waitFor('> ')
    second.type('rates.EUR\r')
    const screen = await second.waitFor(/Return value:\n0\.92\n/)
    expect(screen).toContain('the session was restored')
    expect(screen).not.toMatch(/Done in .* tool call/)
    second.type('\x04')
    expect(await second.exited).toBe(0)
  })

  it('shows the live line and a summary for a run that calls tools', async () => {
    const r = startRepl(TOOLS, { CODEACT_REPL_HISTORY: history() })
    await r.waitFor('> ')
    r.type(
      "const quotes = await Promise.all(['berlin-electro', 'london-gadgets'].map((shop) => tools.lookup_price({ shop, product: 'phone' })))\r",
    )
    await r.waitFor(/Done in \d+\.\d s · 2 tool calls \(lookup_price 2\)/)
    r.type('quotes.map((q) => q.net)\r')
    await r.waitFor(/Return value:\n\[729,649\]\n/)
    r.type('\x04')
    expect(await r.exited).toBe(0)
  })
})

describe('codeact repl with piped input', () => {
  it('runs each input in order in one session, prints no prompts, and exits 0 at the end of input', () => {
    const dir = tempDir('codeact-repl-pipe-')
    const input = join(dir, 'inputs.ts')
    // `.5 * 4` is an expression, not a command; `.nope` is an unknown command, said on stderr.
    writeFileSync(input, 'const xs = [1, 2,\n  3]\nconsole.log("sum so far")\nxs.reduce((a, b) => a + b, 0)\n.5 * 4\n.nope\n')
    const r = spawnSync(process.execPath, ['bin/codeact.mjs', 'repl'], {
      input: readFileSync(input),
      encoding: 'utf8',
      env: { ...process.env, CODEACT_REPL_HISTORY: '' },
      timeout: 60_000,
    })
    expect(r.status).toBe(0)
    expect(r.stdout).toBe('Return value:\n6\nReturn value:\n2\n')
    expect(r.stderr).toContain('sum so far')
    expect(r.stderr).toContain('Unknown REPL command; .help lists them.')
  })

  it('never loads TypeScript into the REPL process (multi-line input is decided without it)', () => {
    const probe = join(tempDir('codeact-repl-nots-'), 'probe.mjs')
    writeFileSync(
      probe,
      `import { createRequire } from 'node:module'
import { main } from ${JSON.stringify(join(process.cwd(), 'dist/cli/main.js'))}
const status = await main(['repl', '--tools', 'examples/tools.ts'])
const loaded = Object.keys(createRequire(import.meta.url)('module')._cache).filter((k) => /[\\\\/]typescript[\\\\/]/.test(k))
process.stderr.write(JSON.stringify({ status, loaded }) + '\\n')
`,
    )
    const r = spawnSync(process.execPath, [probe], {
      input: 'const double = (n: number) =>\n  n * 2\ndouble(1)\nawait tools.lookup_rates({ base: double })\n',
      encoding: 'utf8',
      env: { ...process.env, CODEACT_REPL_HISTORY: '' },
      timeout: 60_000,
    })
    expect(r.stdout).toContain('Return value:\n2\n')
    expect(r.stdout).toContain('Error (type)')
    expect(JSON.parse(r.stderr.trim().split('\n').pop() ?? '{}')).toEqual({ status: 0, loaded: [] })
  })
})
