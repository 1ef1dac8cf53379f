/**
 * The MCP Inspector CLI (`mcp-inspector --cli`, a devDependency) against `bin/codeact.mjs mcp`, over stdio
 * and over HTTP with a token, as a user checks a server by hand: schemas pass its portability check
 * (`--strict`), run_code answers with the capped structuredContent, setLevel is accepted, the workspace
 * tools carry their annotations, and the HTTP guard holds.
 */
import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPO_ROOT, tempDir } from './helpers.js'
import { BIN, startHttpCli, type CliServer } from './http-helpers.js'

const INSPECTOR = join(REPO_ROOT, 'node_modules', '.bin', 'mcp-inspector')
const TOKEN = 'inspector-test-token-0123456789'

interface Ran {
  code: number
  json: { result?: Record<string, unknown>; error?: { message: string } }
  stderr: string
}

let home: string

function inspector(args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      INSPECTOR,
      ['--cli', '--format', 'json', ...args],
      // Its catalog and client config go to a scratch home, not the user's.
      {
        cwd: REPO_ROOT,
        env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') },
        timeout: 90_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
        let json: Ran['json'] = {}
        try {
          json = JSON.parse(stdout) as Ran['json']
        } catch {
          json = { error: { message: `not JSON: ${stdout.slice(0, 500)} ${stderr.slice(0, 500)}` } }
        }
        resolve({ code, json, stderr })
      },
    )
  })
}

describe('the MCP Inspector CLI against codeact mcp', () => {
  let dir: string
  let http: CliServer | undefined

  beforeAll(async () => {
    home = tempDir('codeact-inspector-home-')
    dir = tempDir('codeact-inspector-ws-')
    writeFileSync(join(dir, 'notes.txt'), 'one\ntwo\nthree\n')
    http = await startHttpCli(['--typecheck=off', '--workspace', dir], { ...process.env, CODEACT_MCP_TOKEN: TOKEN })
  })
  afterAll(async () => {
    await http?.stop()
  })

  const stdio = () => [process.execPath, BIN, 'mcp', '--typecheck=off', '--expose-tools', '--workspace', dir]

  it('lists tools whose schemas pass --strict, with outputSchema and annotations (stdio)', async () => {
    const ran = await inspector(['--strict', ...stdio(), '--method', 'tools/list'])
    expect(ran.stderr).not.toMatch(/warning|error/i)
    expect(ran.code).toBe(0)
    const tools = (ran.json.result as { tools: { name: string; outputSchema?: unknown; annotations?: Record<string, boolean> }[] }).tools
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]))
    expect(byName.run_code!.outputSchema).toMatchObject({ type: 'object', required: ['ok', 'error', 'calls'] })
    expect(byName.read_file!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false })
    expect(byName.remove!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })
  })

  it('runs a program and gets the capped structured result (stdio)', async () => {
    const code = `const text = await tools.read_file({ path: 'notes.txt' }); console.log('read'); return text.split('\\n').filter(Boolean).length`
    const ran = await inspector([
      ...stdio(),
      '--method',
      'tools/call',
      '--tool-name',
      'run_code',
      '--tool-args-json',
      JSON.stringify({ code }),
    ])
    expect(ran.code).toBe(0)
    const result = ran.json.result as { structuredContent: Record<string, unknown>; content: { text: string }[] }
    expect(result.structuredContent).toEqual({
      ok: true,
      value: 3,
      error: null,
      calls: [{ id: expect.any(String), name: 'read_file', ok: true, durationMs: expect.any(Number) }],
    })
    expect(result.content[0]!.text).toContain('read')
  })

  it('sets the log level (stdio)', async () => {
    const ran = await inspector([...stdio(), '--method', 'logging/setLevel', '--log-level', 'warning'])
    expect(ran.code).toBe(0)
    expect(ran.json.result).toEqual({})
  })

  it('calls over HTTP with the bearer token, and is refused without it or from a foreign Origin', async () => {
    const auth = ['--header', `Authorization: Bearer ${TOKEN}`]
    const ok = await inspector([
      http!.url,
      ...auth,
      '--method',
      'tools/call',
      '--tool-name',
      'run_code',
      '--tool-args-json',
      JSON.stringify({ code: `return (await tools.list_dir({ path: '.' })).map((e) => e.name)` }),
    ])
    expect(ok.code).toBe(0)
    expect((ok.json.result as { structuredContent: { value: unknown } }).structuredContent.value).toEqual(['notes.txt'])

    const anonymous = await inspector([http!.url, '--method', 'tools/list'])
    expect(anonymous.json.result).toBeUndefined()
    expect(JSON.stringify(anonymous.json.error)).toMatch(/auth/i)

    const foreign = await inspector([http!.url, ...auth, '--header', 'Origin: https://evil.example', '--method', 'tools/list'])
    expect(foreign.json.result).toBeUndefined()
    expect(JSON.stringify(foreign.json.error)).toContain('forbidden Origin')
  })
})
