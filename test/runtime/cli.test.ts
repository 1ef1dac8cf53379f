import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

// The CLI as a user runs it: the built bin, a real process, real exit codes.
function codeact(args: string[], input?: string, env?: Record<string, string>) {
  const r = spawnSync(process.execPath, ['bin/codeact.mjs', ...args], {
    encoding: 'utf8',
    input,
    timeout: 60_000,
    env: { ...process.env, ...env },
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}
const tmp = mkdtempSync(join(tmpdir(), 'codeact-cli-'))

describe('codeact run', () => {
  it('runs the example program against the example tools and prints the observation', () => {
    const r = codeact(['run', 'examples/price-compare.ts', '--tools', 'examples/tools.ts', '--verbose'])
    // --verbose: a line per call (without it, stderr that is not a terminal gets calm lines and a summary).
    expect(r.stderr).toContain('↳ lookup_price ok')
    expect(r.stderr).toMatch(/Done in \d+\.\d s · 8 tool calls \(lookup_price 3, convert_and_tax 3, list_shops 1, lookup_rates 1\)/)
    expect(r.stdout).toContain('Return value:\n{"cheapest":"tokyo-denki","usd":1251.32}')
    expect(r.status).toBe(0)
  })

  it('prints one RunResult object with --json', () => {
    const r = codeact(['run', '-', '--json'], 'console.log("x")\nreturn 42')
    const result = JSON.parse(r.stdout)
    expect(Object.keys(result).sort()).toEqual(['calls', 'error', 'events', 'logs', 'observation', 'ok', 'value'])
    expect(result).toMatchObject({ ok: true, value: 42, logs: [{ level: 'log', text: 'x' }], error: null })
    expect(r.status).toBe(0)
  })

  it('exits 1 when the program fails, 2 on bad usage', () => {
    expect(codeact(['run', '-'], 'throw new Error("no")').status).toBe(1)
    expect(codeact(['run', '-', '--typecheck=off'], 'const = 1').status).toBe(1)
    expect(codeact(['run']).status).toBe(2)
    expect(codeact(['run', 'x.ts', '--timeout', 'soon']).status).toBe(2)
    expect(codeact(['frobnicate']).status).toBe(2)
  })

  it('exits 3 when the sandbox is unavailable, saying so as infrastructure', () => {
    const r = codeact(['run', '-', '--sandbox', 'docker', '--typecheck=off'], 'return 1', {
      DOCKER_HOST: 'unix:///nonexistent/docker.sock',
    })
    expect(r.stdout).toMatch(/^Error \(sandbox_unavailable\): cannot reach the Docker engine/m)
    expect(r.status).toBe(3)
  })

  it('applies --timeout and --memory', () => {
    const r = codeact(['run', '-', '--json', '--timeout', '300'], 'await new Promise(() => {})')
    expect(JSON.parse(r.stdout).error.kind).toBe('timeout')
    const m = codeact(['run', '-', '--json', '--memory', '16'], 'const a: string[] = []; while (true) a.push("x".repeat(1000) + a.length)')
    expect(JSON.parse(m.stdout).error.kind).toBe('memory')
  })

  it('writes the event log with --log, and replay prints the same observation from it', () => {
    const log = join(tmp, 'run.jsonl')
    const r = codeact(['run', 'examples/price-compare.ts', '--tools', 'examples/tools.ts', '--log', log])
    const events = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(events[0].type).toBe('run/start')
    expect(events.at(-1).type).toBe('run/end')
    const replay = codeact(['replay', log])
    expect(replay.stdout).toMatch(/^── run run_[0-9a-f]+ ──\n/)
    expect(replay.stdout).toContain(r.stdout.trimEnd())
  })

  it('loads --tools modules written as .js, .mjs and .ts (array or record default export)', () => {
    writeFileSync(
      join(tmp, 'a.mjs'),
      `export default [{ name: 'a', description: 'A', parameters: { type: 'object' }, execute: () => 'from mjs' }]`,
    )
    writeFileSync(join(tmp, 'package.json'), '{"type":"module"}')
    writeFileSync(
      join(tmp, 'b.js'),
      `export default { b: { name: 'b', description: 'B', parameters: { type: 'object' }, execute: () => 'from js' } }`,
    )
    writeFileSync(
      join(tmp, 'c.ts'),
      `const c: { name: string } & Record<string, unknown> = { name: 'c', description: 'C', parameters: { type: 'object' }, execute: (): string => 'from ts' }\nexport default [c]`,
    )
    const r = codeact(
      ['run', '-', '--json', '--tools', join(tmp, 'a.mjs'), '--tools', join(tmp, 'b.js'), '--tools', join(tmp, 'c.ts')],
      'return [await tools.a({}), await tools.b({}), await tools.c({})]',
    )
    expect(JSON.parse(r.stdout).value).toEqual(['from mjs', 'from js', 'from ts'])
  })
})

describe('codeact sdk', () => {
  it('prints the TypeScript declarations of the tools', () => {
    const r = codeact(['sdk', '--tools', 'examples/tools.ts'])
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('lookup_price(args: {')
    expect(r.stdout).toContain('declare class ToolCallError')
    expect(codeact(['sdk', '--tools', 'examples/tools.ts']).stdout).toBe(r.stdout)
  })

  it('includes the workspace tools when given a workspace', () => {
    const r = codeact(['sdk', '--workspace', tmp])
    expect(r.status).toBe(0)
    for (const name of ['read_file(', 'write_file(', 'edit_file(', 'glob(', 'bash(']) expect(r.stdout).toContain(name)
  })
})

describe('examples/agent-loop.ts', () => {
  it('runs a full agent loop against a scripted model', () => {
    const r = spawnSync(process.execPath, ['scripts/run-ts.mjs', 'examples/agent-loop.ts'], { encoding: 'utf8', timeout: 60_000 })
    expect(r.stdout).toContain('[tool] Return value:')
    expect(r.stdout).toContain('tokyo-denki: 112000 JPY')
    expect(r.status).toBe(0)
  })
})
