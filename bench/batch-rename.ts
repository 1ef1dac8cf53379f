/**
 * The syntax-aware codemod of docs/batch-edits.md on a real tree: joinValues renamed to joinList across zod's
 * 332 TypeScript sources (copied from node_modules), by one run_code program calling `ast_grep`, by
 * jscodeshift doing the same transform, and by the ast-grep CLI (the floor: the same engine, no runtime).
 * Each round runs the three on a fresh copy, in a rotated order, and checks all three trees are the same.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRuntime } from '../runtime/create-runtime.js'
import type { BenchRow } from './types.js'

const RUNS = 5
const REPO = process.cwd()
const SOURCES = join(REPO, 'node_modules/zod/src')
const KINDS = ['identifier', 'property_identifier', 'shorthand_property_identifier_pattern', 'shorthand_property_identifier']

const PROGRAM = `
const r = await tools.ast_grep({ rule: ${JSON.stringify({ regex: '^joinValues$', any: KINDS.map((kind) => ({ kind })) })}, rewrite: 'joinList', lang: 'typescript' })
return r.changed?.length`

const RULE = `id: rename\nlanguage: TypeScript\nrule:\n  regex: ^joinValues$\n  any:\n${KINDS.map((k) => `    - kind: ${k}\n`).join('')}fix: joinList\n`

const TRANSFORM = `module.exports = function transform(file, api) {
  const j = api.jscodeshift
  const root = j(file.source)
  let n = 0
  root.find(j.Identifier, { name: 'joinValues' }).forEach((p) => { p.node.name = 'joinList'; n++ })
  return n ? root.toSource() : undefined
}
module.exports.parser = 'ts'
`

function treeHash(dir: string, h = createHash('sha256'), prefix = ''): string {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    h.update(`${prefix}${e.name}\0`)
    if (e.isDirectory()) treeHash(join(dir, e.name), h, `${prefix}${e.name}/`)
    else h.update(readFileSync(join(dir, e.name)))
  }
  return prefix === '' ? h.digest('hex') : ''
}

function reseed(root: string): void {
  rmSync(root, { recursive: true, force: true })
  cpSync(SOURCES, root, { recursive: true })
}

function spawnOk(cmd: string, args: string[], cwd: string): void {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  if (r.status !== 0) throw new Error(`bench: ${cmd} ${args.join(' ')} failed: ${r.stderr}`)
}

const quantile = (xs: readonly number[], q: number): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN

export default async function batchRename(): Promise<BenchRow[]> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'codeact-bench-rename-')))
  const root = join(base, 'ws')
  mkdirSync(root)
  writeFileSync(join(base, 'rule.yml'), RULE)
  writeFileSync(join(base, 'rename.cjs'), TRANSFORM)
  const times = { codeact: [] as number[], jscodeshift: [] as number[], cli: [] as number[] }
  const trees = new Set<string>()
  const rt = await createRuntime({ workspace: { root }, typecheck: 'off', limits: { timeoutMs: 120_000 } })
  try {
    reseed(root)
    await rt.runCode('return 1') // warm the sandbox
    const jobs: Record<keyof typeof times, () => Promise<void>> = {
      codeact: async () => {
        const r = await rt.runCode(PROGRAM)
        if (!r.ok) throw new Error(`bench: rename program failed: ${r.error?.message}`)
      },
      jscodeshift: async () =>
        spawnOk(join(REPO, 'node_modules/.bin/jscodeshift'), ['-s', '--extensions=ts', '-t', join(base, 'rename.cjs'), '.'], root),
      cli: async () => spawnOk(join(REPO, 'node_modules/.bin/ast-grep'), ['scan', '-r', join(base, 'rule.yml'), '-U', '.'], root),
    }
    const names = Object.keys(jobs) as (keyof typeof times)[]
    for (let i = 0; i < RUNS; i++) {
      for (let j = 0; j < names.length; j++) {
        const name = names[(i + j) % names.length]!
        reseed(root)
        const t = performance.now()
        await jobs[name]()
        times[name].push(performance.now() - t)
        trees.add(treeHash(root))
      }
    }
  } finally {
    await Promise.race([rt.close(), new Promise((r) => setTimeout(r, 5_000).unref())])
    rmSync(base, { recursive: true, force: true })
  }
  if (trees.size !== 1) throw new Error(`bench: the three renames gave ${trees.size} different trees`)
  const ratio = (xs: readonly number[], to: readonly number[]): number =>
    Number(
      quantile(
        xs.map((x, i) => x / (to[i] ?? NaN)),
        0.5,
      ).toFixed(2),
    )
  const row = (name: string, xs: number[], extra: Partial<BenchRow> = {}): BenchRow => ({
    name: `rename on zod's 332 files: ${name}`,
    p50Ms: quantile(xs, 0.5),
    p95Ms: quantile(xs, 0.95),
    ...extra,
  })
  const cliName = "rename on zod's 332 files: ast-grep CLI (floor: same engine, no runtime)"
  return [
    row('ast-grep CLI (floor: same engine, no runtime)', times.cli, { note: `${RUNS} rounds; the three trees are identical` }),
    row('one run_code program calling ast_grep', times.codeact, {
      baseline: cliName,
      note: 'isolate, dispatch, policy, change list; typecheck off',
    }),
    row('jscodeshift, same transform', times.jscodeshift, { baseline: cliName }),
    {
      name: "rename on zod's 332 files: codeact vs jscodeshift",
      value: ratio(times.codeact, times.jscodeshift),
      unit: '× jscodeshift',
      goal: '< 1×',
      note: `median of ${RUNS} per-round ratios`,
    },
    {
      name: "rename on zod's 332 files: codeact vs the ast-grep CLI",
      value: ratio(times.codeact, times.cli),
      unit: '× CLI',
      note: `median of ${RUNS} per-round ratios`,
    },
  ]
}
