/**
 * The documentation's complete scripts run as a user runs them — each in a process of its own, importing
 * `codeact` as a package — and print what the page says they print. Its programs (`<!-- program: NAME -->`)
 * run through the public API, type check on, in a scratch workspace. The MCP host config in the README is
 * started as written (`npx -y codeact mcp …`) in a scratch project and answers `tools/list`.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, describe, expect, it } from 'vitest'
import { createRuntime } from '../../runtime/create-runtime.js'
import { extractSnippets, named, offlineEnv, root, scratchProject } from './markdown.js'

const snippets = extractSnippets()
const scratch: string[] = []
afterAll(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** Runs one extracted snippet as a program of its own (esbuild strips the types, as Node 22.18+ would). */
function runScript(name: string): string {
  const file = snippets.get(name)
  expect(file, `no snippet ${name}`).toBeDefined()
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'run-ts.mjs'), file!], { cwd: root, encoding: 'utf8', timeout: 120_000 })
  expect(r.status, `${name}: ${r.stderr}`).toBe(0)
  return r.stdout
}

describe('scripts in the documentation', () => {
  it('README quick start: prints the SDK, then the observation the README shows', () => {
    const out = runScript('quickstart')
    expect(out).toContain('get_weather(args: { city: string }): Promise<{ city: string; tempC: number }>')
    expect(out).toContain(named('output').get('quickstart')!.text.trim())
  })

  it('docs/approvals.md: the handler approves old.log and refuses main.ts with its reason', () => {
    const out = runScript('approvals')
    expect(out).toContain('asked: ')
    expect(out).toContain("{ removed: 'old.log' }")
    expect(out).toContain("'EACCES: not approved: only .log files may go'")
  })

  it('docs/embedding.md: two callers, each in its own process', () => {
    expect(runScript('callers').trim()).toBe('42 hi')
  })

  it("docs/embedding.md: a second runtime's first run takes the shared spare", () => {
    expect(runScript('share-spare').trim()).toBe('2')
  })

  it('docs/type-checking.md: a runtime that asks for collections when idle runs as any other', () => {
    expect(runScript('collect-when-idle').trim()).toBe('3')
  })

  it('docs/security.md: a state folder outside the workspace is taken, and the run goes on', () => {
    expect(runScript('state-dir').trim()).toBe('true')
  })
})

describe('programs in the documentation', () => {
  const programs = named('program')

  it('are the ones tested here', () => {
    expect([...programs.keys()].sort()).toEqual(['fire-and-forget', 'fix-imports', 'rename'])
  })

  it('docs/embedding.md, fire and forget: all three writes land, and the observation names the idiom', async () => {
    const { dir, result } = await runProgram('fire-and-forget', {})
    expect(result.ok).toBe(true)
    for (const f of ['a.txt', 'b.txt', 'c.txt']) expect(readFileSync(join(dir, f), 'utf8')).toBe('done\n')
    expect(result.observation).toMatch(/Promise\.all|for … of|for\.\.\.of/)
  })

  it('docs/batch-edits.md, fix-imports.ts: lodash becomes lodash-es in src/, nothing else changes', async () => {
    const files = {
      'src/a.ts': "import { map } from 'lodash'\n",
      'src/deep/b.tsx': "import { pick } from 'lodash'\nexport const x = 1\n",
      'src/c.ts': "import { z } from 'zod'\n",
      'lib/d.ts': "import { map } from 'lodash'\n",
    }
    const { dir, result } = await runProgram('fix-imports', files)
    expect(result.ok, result.observation).toBe(true)
    expect(result.value).toBe(3)
    expect(readFileSync(join(dir, 'src/a.ts'), 'utf8')).toBe("import { map } from 'lodash-es'\n")
    expect(readFileSync(join(dir, 'src/deep/b.tsx'), 'utf8')).toContain("from 'lodash-es'")
    expect(readFileSync(join(dir, 'lib/d.ts'), 'utf8')).toBe(files['lib/d.ts'])
    expect(result.changes?.map((c) => c.path)).toEqual(['src/a.ts', 'src/deep/b.tsx'])
  })

  it('docs/batch-edits.md, rename.ts: every reference renamed, across a line break and destructured; comments and strings kept', async () => {
    const files = {
      'src/util.ts': '// joinValues joins\nexport function joinValues(v: string[]) {\n  return v.join(", ")\n}\n',
      'src/use.ts':
        "import * as util from './util'\nconst { joinValues } = util\nexport const s = 'joinValues'\nexport const a = util\n  .joinValues(['a'])\n",
      'lib/other.ts': 'export const joinValues = 1\n',
    }
    const { dir, result } = await runProgram('rename', files)
    expect(result.ok, result.observation).toBe(true)
    expect(result.value).toBe(3)
    expect(readFileSync(join(dir, 'src/util.ts'), 'utf8')).toBe(files['src/util.ts'].replace('function joinValues', 'function joinList'))
    expect(readFileSync(join(dir, 'src/use.ts'), 'utf8')).toBe(
      files['src/use.ts'].replace('{ joinValues }', '{ joinList }').replace('.joinValues(', '.joinList('),
    )
    expect(result.changes?.map((c) => c.path)).toEqual(['src/use.ts', 'src/util.ts'])
  })
})

describe('the MCP host config in the README', () => {
  it('starts as written with npx in an installed project and offers run_code', async () => {
    const config = JSON.parse(named('config').get('mcp-host')!.text) as {
      mcpServers: { codeact: { command: string; args: string[] } }
    }
    const { command, args } = config.mcpServers.codeact
    expect([command, ...args.slice(0, 3)]).toEqual(['npx', '-y', 'codeact', 'mcp'])
    const project = scratchProject()
    const workspace = join(project, 'work')
    mkdirSync(workspace)
    const client = new Client({ name: 'docs-test', version: '1.0.0' })
    const transport = new StdioClientTransport({
      command,
      args: args.map((a) => (a === '/path/to/project' ? workspace : a)),
      cwd: project,
      env: offlineEnv as Record<string, string>,
      stderr: 'pipe',
    })
    await client.connect(transport)
    try {
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toEqual(['run_code'])
      const result = await client.callTool({
        name: 'run_code',
        arguments: { code: "await tools.write_file({ path: 'x.txt', content: 'y' })\nreturn 1" },
      })
      expect(result.isError).toBeFalsy()
      expect(existsSync(join(workspace, 'x.txt'))).toBe(true)
    } finally {
      await client.close()
      rmSync(project, { recursive: true, force: true })
    }
  }, 120_000)
})

async function runProgram(name: string, files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'codeact-docs-program-'))
  scratch.push(dir)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  const rt = await createRuntime({ workspace: { root: dir }, typecheck: 'error' })
  try {
    return { dir, result: await rt.runCode(named('program').get(name)!.text) }
  } finally {
    await rt.close()
  }
}
