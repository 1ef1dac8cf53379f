/**
 * The documentation as a reader meets it: a README read in ten minutes, links that land, and no code block
 * that could drift unseen — every TypeScript block is tested (snippet, program) or says it is an excerpt,
 * and the shell blocks a user runs as written are run here, in a scratch project where `npx codeact` is this
 * package's build.
 */
import { existsSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { describe, expect, it } from 'vitest'
import { allBlocks, docFiles, named, read, root, runShell } from './markdown.js'

const MARKERS = /^(snippet: \S+|program: \S+|config: \S+|output: \S+|output|excerpt|run|run: docker)$/

describe('README.md', () => {
  it('is at most 300 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(300)
  })

  it('starts with the two commands of a clone: set up and run the example, pass the tests', () => {
    const first = allBlocks().find((b) => b.file === 'README.md')!
    expect(first.text).toMatch(/^npm ci && npx codeact run examples\/price-compare\.ts --tools examples\/tools\.ts\s/)
    expect(first.text.split('\n')[1]).toMatch(/^npm test\s/)
  })

  it('renders as a package page: headings in order, one table, short code blocks', () => {
    const text = read('README.md')
    const outside = text.replace(/^```[\s\S]*?^```$/gm, '')
    const headings = [...outside.matchAll(/^(#+) /gm)].map((m) => m[1]!.length)
    expect(headings.filter((h) => h === 1)).toHaveLength(1)
    expect(headings.every((h, i) => i === 0 || h <= headings[i - 1]! + 1)).toBe(true)
    expect(outside.match(/^\|[-:| ]+\|$/gm)).toHaveLength(1)
    for (const b of allBlocks().filter((b) => b.file === 'README.md'))
      expect(b.text.split('\n').length, `README.md:${b.line}`).toBeLessThanOrEqual(30)
  })
})

describe('links', () => {
  it('every relative link in README.md, CONTRIBUTING.md and docs/ resolves to a file, and an anchor to a heading', () => {
    const broken: string[] = []
    for (const file of docFiles()) {
      const text = read(file).replace(/^```[\s\S]*?^```$/gm, '')
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue
        const [path, anchor] = target!.split('#') as [string, string | undefined]
        const to = path ? normalize(join(dirname(file), path)) : file
        if (!existsSync(join(root, to))) broken.push(`${file}: ${target} (no file ${to})`)
        else if (anchor !== undefined && !anchors(to).has(anchor)) broken.push(`${file}: ${target} (no heading #${anchor} in ${to})`)
      }
    }
    expect(broken).toEqual([])
  })
})

describe('code blocks', () => {
  it('every ```ts block is marked: a tested snippet or program, or an excerpt', () => {
    const unmarked = allBlocks()
      .filter((b) => b.lang === 'ts' || b.lang === 'typescript')
      .filter((b) => !/^(snippet|program): \S+$|^excerpt$/.test(b.marker))
      .map((b) => `${b.file}:${b.line}`)
    expect(unmarked).toEqual([])
  })

  it('every marker is one the tests know, and every name is used once', () => {
    const unknown = allBlocks()
      .filter((b) => b.marker && !MARKERS.test(b.marker))
      .map((b) => `${b.file}:${b.line} <!-- ${b.marker} -->`)
    expect(unknown).toEqual([])
    for (const kind of ['snippet', 'program', 'config', 'output']) expect(() => named(kind)).not.toThrow()
  })

  it('the shell blocks marked run pass as written, each in a fresh project, and print the output shown after them', () => {
    const all = allBlocks()
    const runs = all.filter((b) => b.marker === 'run')
    expect(runs.length).toBeGreaterThan(0)
    for (const block of runs) {
      const r = runShell(block)
      const where = `${block.file}:${block.line}\n${r.stdout}\n${r.stderr}`
      expect(r.status, where).toBe(0)
      const next = all[all.indexOf(block) + 1]
      if (next?.file === block.file && next.marker === 'output') expect(r.stdout, where).toContain(next.text.trim())
    }
  }, 300_000)
})

/** GitHub's anchors for a page's headings: lowercased, punctuation dropped, spaces as hyphens, repeats -1, -2. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  const text = read(file).replace(/^```[\s\S]*?^```$/gm, '')
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n ? `${base}-${n}` : base)
  }
  return out
}
