/**
 * What a check-off runtime keeps out of its process (sdk/lazy-module.ts): a fresh Node process imports the
 * built library, makes a runtime with the check off and a JSON Schema tool, runs a program that calls it,
 * and reports every module it resolved (a resolve hook) and required (require.cache). zod, diff, ignore, the
 * source-map reader and every parser and compiler of programs (TypeScript, esbuild, oxc; Babel and acorn,
 * which codeact no longer ships) stay unloaded — the host's thread parses no program; a workspace loads zod, and the probe sees it (the test can
 * fail), as the same instance an `import 'zod'` gets. In-process: zod schemas of both zod APIs still become
 * JSON Schema and declarations — classic through the schema's own method, zod/mini through zod's core.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { LIBRARY, RESOLVE_RECORDER, runProbe } from './fixtures/module-probe.js'
import { z } from 'zod'
import * as zm from 'zod/mini'
import { renderToolsInterface } from '../../sdk/declarations.js'
import { toJsonSchema } from '../../sdk/schema.js'
import type { SchemaLike } from '../../vocabulary/types.js'

const LAZY = /[\\/]node_modules[\\/](zod|diff|ignore|@jridgewell[\\/]trace-mapping|typescript|esbuild|oxc-transform|@babel|acorn)[\\/]/
const root = mkdtempSync(join(tmpdir(), 'codeact-lazy-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const probe = (workspace: boolean) => `${RESOLVE_RECORDER}
const { createRuntime } = await import(${JSON.stringify(LIBRARY)})
const rt = await createRuntime({
  typecheck: 'off',
  tools: [{ name: 'add', description: 'Adds.', parameters: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }, execute: ({ a }) => a + 1 }],
  ${workspace ? `workspace: { root: ${JSON.stringify(root)} },` : ''}
})
const r = await rt.runCode('const n = await tools.add({ a: 1 })\\nreturn n * 2')
rt.runCodeTool()
await rt.close()
await new Promise((resolve) => setTimeout(resolve, 50))
let sameZod = null
${workspace ? `const ws = (await import(${JSON.stringify(LIBRARY)})).createWorkspace({ root: ${JSON.stringify(root)} }); sameZod = ws.tools[0].parameters instanceof (await import('zod')).z.ZodObject; ws.close()` : ''}
console.log(JSON.stringify({ ok: r.ok, observation: r.observation, sameZod, loaded: [...resolved, ...Object.keys(createRequire(import.meta.url).cache)] }))
`

function run(workspace: boolean): Promise<{ ok: boolean; observation: string; sameZod: boolean | null; loaded: string[] }> {
  return runProbe(probe(workspace))
}

describe('a check-off runtime with JSON Schema tools', () => {
  it('runs a program without loading zod, diff, ignore, the source-map reader or any parser of programs', async () => {
    const r = await run(false)
    expect(r.ok, r.observation).toBe(true)
    expect(r.observation).toContain('4')
    expect(r.loaded.filter((url) => LAZY.test(url))).toEqual([])
  }, 90_000)

  it('loads zod once a workspace is made, the instance an import of zod shares', async () => {
    const r = await run(true)
    expect(r.ok, r.observation).toBe(true)
    expect(r.loaded.some((url) => /[\\/]node_modules[\\/]zod[\\/]/.test(url))).toBe(true)
    expect(r.sameZod).toBe(true)
  }, 90_000)
})

describe('zod schemas, zod loaded lazily', () => {
  // zod/mini is outside SchemaLike's type; at run time every zod (v4) schema is taken as one (isZodSchema).
  const asSchema = (schema: unknown) => schema as SchemaLike

  it('become the same JSON Schema from the classic API and from zod/mini', () => {
    const classic = z.object({ path: z.string().min(1).describe('Where'), n: z.number().int().optional() })
    const mini = zm.object({
      path: zm.string().check(zm.minLength(1)).register(z.globalRegistry, { description: 'Where' }),
      n: zm.optional(zm.int()),
    })
    expect(toJsonSchema(asSchema(mini))).toEqual(toJsonSchema(classic))
    expect(toJsonSchema(classic)).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string', minLength: 1, description: 'Where' } },
    })
  })

  it('type a tool in the declarations, closed objects and descriptions included, from either API', () => {
    const text = (parameters: unknown) =>
      renderToolsInterface([{ name: 'read', description: 'Read.', parameters: asSchema(parameters), execute: () => null }])
    const classic = text(z.object({ path: z.string().describe('Where') }))
    expect(classic).toContain('Where')
    expect(classic).toContain('path: string')
    expect(text(zm.object({ path: zm.string().register(z.globalRegistry, { description: 'Where' }) }))).toBe(classic)
  })
})
