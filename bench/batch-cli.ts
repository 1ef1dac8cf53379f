/**
 * What all or nothing costs a person at the command line: one `codeact run --workspace` process editing 300
 * files, the default (staged, applied together at the end) against `--no-atomic` (each write lands as it is
 * made), in rounds that alternate the two so load hits them alike. Called from the batch suite (batch.ts).
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BenchRow } from './types.js'

const FILES = 300
const ROUNDS = 7
const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'codeact.mjs')

const PROGRAM = `
const files = await tools.glob({ pattern: 'src/**/*.ts' })
for (let i = 0; i < files.length; i += 10)
  await Promise.all(files.slice(i, i + 10).map(async (path) => {
    const text = await tools.read_file({ path })
    await tools.write_file({ path, content: text.replaceAll('joinValues', 'joinAll') })
  }))
return files.length`

function seed(root: string): void {
  rmSync(root, { recursive: true, force: true })
  for (let i = 0; i < FILES; i++) {
    mkdirSync(join(root, `src/m${i % 12}`), { recursive: true })
    writeFileSync(join(root, `src/m${i % 12}/f${i}.ts`), `import { joinValues } from './util'\nexport const v${i} = joinValues([${i}])\n`)
  }
}

function run(root: string, program: string, extra: string[]): number {
  const started = performance.now()
  const r = spawnSync(process.execPath, [BIN, 'run', program, '--workspace', root, '--typecheck=off', ...extra], { encoding: 'utf8' })
  const ms = performance.now() - started
  if (r.status !== 0) throw new Error(`bench: codeact run ${extra.join(' ')} exited ${r.status}: ${r.stderr.slice(-300)}`)
  if (!readFileSync(join(root, 'src/m0/f0.ts'), 'utf8').includes('joinAll')) throw new Error('bench: the edit did not land')
  return ms
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
const p95 = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(0.95 * xs.length))] ?? Number.NaN

export async function cliBatchRows(): Promise<BenchRow[]> {
  const base = realpathSync(mkdtempSync(join(process.env.CODEACT_BENCH_BATCH_DIR ?? tmpdir(), 'codeact-bench-cli-')))
  const root = join(base, 'ws')
  const program = join(base, 'rename.ts')
  writeFileSync(program, PROGRAM)
  const env = process.env.CODEACT_STATE_DIR
  process.env.CODEACT_STATE_DIR = join(base, 'state')
  const atomic: number[] = []
  const direct: number[] = []
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const order: [number[], string[]][] = [
        [atomic, []],
        [direct, ['--no-atomic']],
      ]
      for (const [into, extra] of i % 2 ? order.reverse() : order) {
        seed(root)
        into.push(run(root, program, extra))
      }
    }
  } finally {
    if (env === undefined) delete process.env.CODEACT_STATE_DIR
    else process.env.CODEACT_STATE_DIR = env
    rmSync(base, { recursive: true, force: true })
  }
  const directName = `batch ${FILES} files: codeact run --workspace --no-atomic (whole process, each write as made)`
  const ratios = atomic.map((a, i) => a / (direct[i] ?? Number.NaN))
  return [
    { name: directName, p50Ms: median(direct), p95Ms: p95(direct), note: `${ROUNDS} rounds, a fresh tree each` },
    {
      name: `batch ${FILES} files: codeact run --workspace, all or nothing (the default; whole process)`,
      p50Ms: median(atomic),
      p95Ms: p95(atomic),
      baseline: directName,
      note: `median of per-round ratios ${median(ratios).toFixed(2)}×: staging, the journal and a rename per file`,
    },
  ]
}
