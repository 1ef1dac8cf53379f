/**
 * The pre-run type check: a warm checker against a cold `ts.createProgram` per check (the naive way), the
 * first check of a fresh checker, a declarations change, and the SDK's size. 50 tools, a 50-line program.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import type { JsonSchema, ToolDefinition } from '../vocabulary/types.js'
import { renderDeclarations } from '../sdk/declarations.js'
import { createTypeChecker } from '../program/typecheck.js'
import { createTypecheck } from '../runtime/typecheck.js'
import { priceRows } from './typecheck-price.js'
import type { BenchRow } from './types.js'

const TOOLS = 50
const WARM_RUNS = 60
const COLD_RUNS = 8

/** 50 tools with the shapes real tools have: strings, enums, optional numbers, nested objects, arrays, outputs. */
function benchTools(): ToolDefinition[] {
  return Array.from({ length: TOOLS }, (_, i): ToolDefinition => {
    const parameters: JsonSchema = {
      type: 'object',
      properties: {
        path: { type: 'string', description: `Path of item ${i}` },
        mode: { type: 'string', enum: ['read', 'write', 'append'], default: 'read' },
        limit: { type: 'integer', minimum: 1 },
        options: {
          type: 'object',
          properties: { recursive: { type: 'boolean' }, depth: { type: 'integer' } },
          additionalProperties: false,
        },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['path'],
      additionalProperties: false,
    }
    const output: JsonSchema = {
      type: 'object',
      properties: {
        ok: { type: 'boolean' },
        items: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' }, size: { type: 'number' } }, required: ['name', 'size'] },
        },
      },
      required: ['ok', 'items'],
    }
    return {
      name: `tool_${String(i).padStart(2, '0')}`,
      description: `Does thing number ${i} to a path.`,
      parameters,
      output,
      execute: () => null,
    }
  })
}

/** A 50-line program: calls, Promise.all, loops, a helper with generics, narrowing, a class. */
function benchProgram(): string {
  const lines = [
    'interface Row { name: string; size: number }',
    'function total<T extends { size: number }>(rows: readonly T[]): number {',
    '  return rows.reduce((n, r) => n + r.size, 0)',
    '}',
    'class Tally { private counts = new Map<string, number>(); add(k: string) { this.counts.set(k, (this.counts.get(k) ?? 0) + 1) } get size() { return this.counts.size } }',
    'const tally = new Tally()',
    'const rows: Row[] = []',
  ]
  for (let i = 0; lines.length < 46; i++) {
    const t = `tool_${String(i % TOOLS).padStart(2, '0')}`
    lines.push(`const r${i} = await tools.${t}({ path: 'dir/${i}', mode: 'read', options: { recursive: ${i % 2 === 0} }, tags: ['a'] })`)
    lines.push(`if (r${i}.ok) { rows.push(...r${i}.items); for (const it of r${i}.items) tally.add(it.name) }`)
  }
  lines.push("const [a, b] = await Promise.all([tools.tool_01({ path: 'x' }), tools.tool_02({ path: 'y', limit: 3 })])")
  lines.push("try { await tools.tool_03({ path: 'z' }) } catch (e) { if (e instanceof ToolCallError) console.log(e.code) }")
  lines.push('console.log(`${rows.length} rows`, a.items.length + b.items.length)')
  lines.push('return { total: total(rows), distinct: tally.size }')
  return lines.join('\n')
}

/** A 50-line program of the kind models write: a few calls, then data processing on the results. */
function typicalProgram(): string {
  return [
    "const dirs = ['src', 'test', 'docs']",
    'const listings = await Promise.all(dirs.map((d) => tools.tool_00({ path: d, options: { recursive: true } })))',
    'const files = listings.flatMap((l, i) => l.items.map((it) => ({ dir: dirs[i] ?? "?", ...it })))',
    'const bySize = [...files].sort((a, b) => b.size - a.size)',
    'const largest = bySize.slice(0, 5)',
    'const totals = new Map<string, number>()',
    'for (const f of files) totals.set(f.dir, (totals.get(f.dir) ?? 0) + f.size)',
    'function human(n: number): string {',
    '  const units = ["B", "KB", "MB", "GB"]',
    '  let i = 0',
    '  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++ }',
    '  return `${n.toFixed(1)} ${units[i]}`',
    '}',
    'const report: string[] = []',
    'for (const [dir, size] of totals) report.push(`${dir}: ${human(size)}`)',
    'const details = await tools.tool_01({ path: largest[0]?.name ?? "", mode: "read", limit: 10 })',
    'if (!details.ok) {',
    '  console.warn("could not read the largest file")',
    '}',
    'const names = details.items.map((it) => it.name.toLowerCase())',
    'const unique = [...new Set(names)].filter((n) => n.endsWith(".ts"))',
    'let written = 0',
    'for (const name of unique.slice(0, 3)) {',
    '  try {',
    '    const r = await tools.tool_02({ path: `out/${name}`, mode: "write", tags: ["report"] })',
    '    if (r.ok) written++',
    '  } catch (e) {',
    '    if (e instanceof ToolCallError && e.code === "EROFS") console.error(`read-only: ${name}`)',
    '    else throw e',
    '  }',
    '}',
    'type Summary = { files: number; written: number; largest: { name: string; size: string }[] }',
    'const summary: Summary = {',
    '  files: files.length,',
    '  written,',
    '  largest: largest.map((f) => ({ name: f.name, size: human(f.size) })),',
    '}',
    'const byDir = Object.fromEntries(totals)',
    'const counts = files.reduce<Record<string, number>>((acc, f) => {',
    '  const ext = f.name.split(".").pop() ?? ""',
    '  acc[ext] = (acc[ext] ?? 0) + 1',
    '  return acc',
    '}, {})',
    'const top = Object.entries(counts).sort(([, a], [, b]) => b - a).slice(0, 3)',
    'console.log(report.join("\\n"))',
    'console.log(JSON.stringify(top))',
    'const check = await tools.tool_03({ path: "out" })',
    'console.info(`check: ${check.items.length} items`, byDir)',
    'return summary',
  ].join('\n')
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y)
  return Math.round((sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0) * 10) / 10
}

function time(fn: () => void): number {
  const start = performance.now()
  fn()
  return performance.now() - start
}

/** Wall and CPU milliseconds of each run: CPU time says how much work it was when the machine is busy. */
function measure(runs: number, fn: (i: number) => void): { wall: number[]; cpu: number[] } {
  const wall: number[] = []
  const cpu: number[] = []
  for (let i = 0; i < runs; i++) {
    const before = process.cpuUsage()
    wall.push(time(() => fn(i)))
    const used = process.cpuUsage(before)
    cpu.push((used.user + used.system) / 1000)
  }
  return { wall, cpu }
}

/** The naive way: a new program with the default host every time (reads and parses the lib again). */
function coldCheck(declarations: string, source: string): number {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.ESNext,
    moduleDetection: ts.ModuleDetectionKind.Force,
    lib: ['lib.es2023.d.ts'],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  }
  const host = ts.createCompilerHost(options)
  const files = new Map([
    ['/b/sdk.d.ts', declarations],
    ['/b/program.ts', source],
  ])
  const getSourceFile = host.getSourceFile
  host.getSourceFile = (name, lang, ...rest) => {
    const text = files.get(name)
    return text === undefined ? getSourceFile(name, lang, ...rest) : ts.createSourceFile(name, text, lang)
  }
  const program = ts.createProgram({ rootNames: [...files.keys()], options, host })
  const file = program.getSourceFile('/b/program.ts')
  return file ? program.getSemanticDiagnostics(file).length : -1
}

/** The first check in a fresh Node process, typescript's own loading included (needs `npm run build`). */
function freshProcessMs(declarations: string, source: string): number | undefined {
  const candidates = [
    new URL('../dist/program/typecheck.js', import.meta.url),
    new URL(`file://${process.cwd()}/dist/program/typecheck.js`),
  ]
  const built = candidates.map((u) => fileURLToPath(u)).find((p) => existsSync(p))
  if (built === undefined) return undefined
  const script = `const t0 = performance.now(); const { createTypeChecker } = await import(${JSON.stringify(built)});
const c = createTypeChecker(); c.setDeclarations(process.env.DECL); c.check(process.env.SRC); console.log(performance.now() - t0)`
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, DECL: declarations, SRC: source },
    encoding: 'utf8',
  })
  const ms = Number(out.stdout.trim())
  return out.status === 0 && Number.isFinite(ms) ? Math.round(ms) : undefined
}

/** The 89 recorded MCP tools (test/sdk/fixtures), named `server__tool` as the MCP import names them. */
function recordedMcpTools(): ToolDefinition[] {
  const dir = fileURLToPath(new URL('../../test/sdk/fixtures/mcp-tool-schemas', import.meta.url))
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => {
      const server = f.replace(/\.json$/, '').replace(/[^A-Za-z0-9_]/g, '_')
      const data = JSON.parse(readFileSync(`${dir}/${f}`, 'utf8')) as {
        tools: { name: string; description?: string; inputSchema: JsonSchema; outputSchema?: JsonSchema }[]
      }
      return data.tools.map(
        (t): ToolDefinition => ({
          name: `${server}__${t.name.replace(/[^A-Za-z0-9_]/g, '_')}`,
          description: t.description ?? '',
          parameters: t.inputSchema,
          ...(t.outputSchema ? { output: t.outputSchema } : {}),
          execute: () => null,
        }),
      )
    })
}

/** The runtime's path: normalise + check in the checker's thread (program/typecheck-pool.ts), one message each way. */
async function threadRows(declarations: string, baseline: string): Promise<BenchRow[]> {
  const typecheck = createTypecheck('error', () => declarations)
  if (typecheck === undefined) return []
  await typecheck.warm()
  const program = typicalProgram()
  for (let i = 0; i < 5; i++) await typecheck.prepare(`${program}\n// warm ${i}`, false)
  const wall: number[] = []
  for (let i = 0; i < WARM_RUNS; i++) {
    const t0 = performance.now()
    await typecheck.prepare(`${program}\n// run ${i}`, false)
    wall.push(performance.now() - t0)
  }
  return [
    {
      name: 'type check: warm, in the checker thread (the runtime path: normalise + check), typical program',
      p50Ms: percentile(wall, 50),
      p95Ms: percentile(wall, 95),
      baseline,
      goal: 'p50 ≤ 30 ms',
      note: `${WARM_RUNS} runs; the host thread only waits on a message`,
    },
  ]
}

export default async (): Promise<BenchRow[]> => {
  const declarations = renderDeclarations(benchTools())
  const source = benchProgram()
  const rows: BenchRow[] = []

  const fresh = freshProcessMs(declarations, source)
  const firstChecker = createTypeChecker()
  firstChecker.setDeclarations(declarations)
  const firstMs = time(() => firstChecker.check(source))
  const secondChecker = createTypeChecker()
  secondChecker.setDeclarations(declarations)
  const secondMs = time(() => secondChecker.check(source))

  const cold = Array.from({ length: COLD_RUNS }, () => time(() => coldCheck(declarations, source)))
  const baseline = 'type check: cold ts.createProgram per check (50 tools, 50 lines)'
  rows.push({
    name: baseline,
    p50Ms: percentile(cold, 50),
    p95Ms: percentile(cold, 95),
    note: `${COLD_RUNS} runs; default host, lib re-read and re-parsed`,
  })

  let checker = createTypeChecker()
  checker.setDeclarations(declarations)
  const typical = typicalProgram()
  const typicalDiagnostics = checker.check(typical)
  const typicalRuns = measure(WARM_RUNS, (i) => checker.check(`${typical}\n// run ${i}`))
  rows.push({
    name: 'type check: warm, resident checker, typical program (50 tools, 50 lines, 6 calls)',
    p50Ms: percentile(typicalRuns.wall, 50),
    p95Ms: percentile(typicalRuns.wall, 95),
    baseline,
    goal: 'p50 ≤ 30 ms',
    note: `${WARM_RUNS} runs; CPU p50 ${percentile(typicalRuns.cpu, 50)} ms; ${typicalDiagnostics.length} diagnostics (expected 0)`,
  })
  for (const resident of [true, false]) {
    checker = createTypeChecker({ resident })
    checker.setDeclarations(declarations)
    await checker.warm()
    const diagnostics = checker.check(source)
    const warm = measure(WARM_RUNS, (i) => checker.check(`${source}\n// run ${i}`))
    rows.push({
      name: `type check: warm, ${resident ? 'resident checker (default)' : 'program per check'}, heavy program (50 tools, 50 lines, 25 calls)`,
      p50Ms: percentile(warm.wall, 50),
      p95Ms: percentile(warm.wall, 95),
      baseline,
      goal: 'p50 ≤ 30 ms',
      note: `${WARM_RUNS} runs; CPU p50 ${percentile(warm.cpu, 50)} ms; ${diagnostics.length} diagnostics (expected 0)`,
    })
  }

  const other = renderDeclarations(benchTools().slice(0, TOOLS - 1))
  const redeclare = Array.from({ length: 10 }, (_, i) =>
    time(() => {
      checker.setDeclarations(i % 2 === 0 ? other : declarations)
      checker.check(source)
    }),
  )
  rows.push({
    name: 'type check: declarations changed, then check',
    p50Ms: percentile(redeclare, 50),
    p95Ms: percentile(redeclare, 95),
    baseline,
    note: 'SDK re-parsed, lib reused',
  })

  rows.push({
    name: 'type check: first check of a fresh checker (fresh process, incl. loading typescript)',
    value: fresh,
    unit: 'ms',
    goal: '≤ 1500 ms',
    note: fresh === undefined ? 'not measured: run `npm run build` first' : undefined,
  })
  rows.push({
    name: 'type check: first check of the first checker in this process',
    value: Math.round(firstMs),
    unit: 'ms',
    goal: '≤ 1500 ms',
    note: 'lib parsed here',
  })
  rows.push({ name: 'type check: first check of a later checker (lib already parsed)', value: Math.round(secondMs), unit: 'ms' })
  rows.push({
    name: 'SDK declarations size (50 tools)',
    value: declarations.length,
    unit: 'chars',
    note: `≈ ${Math.round(declarations.length / 4)} tokens at 4 chars/token`,
  })
  rows.push(...(await threadRows(declarations, baseline)))
  rows.push(...(await priceRows()))
  const mcp = recordedMcpTools()
  if (mcp.length > 0) {
    const json = 'function-calling JSON of the 89 recorded MCP tools'
    const jsonBytes = Buffer.byteLength(
      JSON.stringify(
        mcp.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })),
      ),
    )
    rows.push({ name: json, value: jsonBytes, unit: 'bytes' })
    rows.push({
      name: 'SDK text of the same 89 tools (with constraints as JSDoc)',
      value: Buffer.byteLength(renderDeclarations(mcp)),
      unit: 'bytes',
      baseline: json,
      goal: '≤ 0.70×',
    })
  }
  return rows
}
