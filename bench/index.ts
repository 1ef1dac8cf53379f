/**
 * `make bench`: runs every bench suite found beside this file (each default-exports `() => Promise<BenchRow[]>`)
 * and prints one markdown table: p50/p95 or a single figure, and the ratio to its baseline row measured in
 * the same run, under a line naming the machine.
 */
import { readdirSync } from 'node:fs'
import { cpus } from 'node:os'
import { basename, dirname } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { BenchRow, BenchSuite } from './types.js'

const here = dirname(fileURLToPath(import.meta.url))
const SKIP = new Set(['index', 'types', 'measure', 'floors', 'fleet', 'fleet-client', 'postgres'])

function fmt(n: number | undefined, digits = 2): string {
  if (n === undefined || !Number.isFinite(n)) return ''
  return n >= 100 ? n.toFixed(0) : n.toFixed(digits)
}
/** The figure a ratio compares: p50 when there is one, else the single value. */
const figure = (r: BenchRow) => r.p50Ms ?? r.value

export function renderTable(rows: readonly (BenchRow & { suite: string })[]): string {
  const byName = new Map(rows.map((r) => [r.name, r]))
  const lines = ['| suite | what | p50 ms | p95 ms | value | vs baseline | goal | note |', '|---|---|---:|---:|---:|---:|---|---|']
  for (const r of rows) {
    const base = r.baseline ? byName.get(r.baseline) : undefined
    const a = figure(r)
    const b = base ? figure(base) : undefined
    const ratio =
      a !== undefined && b !== undefined && b !== 0
        ? `${fmt(a / b)}× of “${base!.name}”`
        : r.baseline
          ? `(baseline “${r.baseline}” missing)`
          : ''
    const value = r.value !== undefined ? `${fmt(r.value)} ${r.unit ?? ''}`.trim() : ''
    lines.push(`| ${r.suite} | ${r.name} | ${fmt(r.p50Ms)} | ${fmt(r.p95Ms)} | ${value} | ${ratio} | ${r.goal ?? ''} | ${r.note ?? ''} |`)
  }
  return lines.join('\n')
}

async function main(): Promise<void> {
  const only = process.argv.slice(2)
  const suites = readdirSync(here)
    .filter((f) => f.endsWith('.js') && !SKIP.has(basename(f, '.js')))
    .map((f) => basename(f, '.js'))
    .filter((name) => only.length === 0 || only.includes(name))
    .sort()
  const rows: (BenchRow & { suite: string })[] = []
  for (const suite of suites) {
    process.stderr.write(`bench: ${suite} …\n`)
    try {
      const mod = (await import(pathToFileURL(`${here}/${suite}.js`).href)) as { default?: BenchSuite }
      if (typeof mod.default !== 'function') continue
      for (const row of await mod.default()) rows.push({ ...row, suite })
    } catch (e) {
      rows.push({
        suite,
        name: 'suite failed',
        note: String(e instanceof Error ? e.message : e)
          .split('\n')[0]!
          .replace(/\|/g, '/'),
      })
    }
  }
  const cpu = cpus()
  console.log(
    `Machine: ${cpu.length} cores, ${cpu[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}, ${process.platform}/${process.arch}\n`,
  )
  console.log(renderTable(rows))
}

await main()
