/**
 * The documentation as the tests read it: README.md, CONTRIBUTING.md and every page of docs/, each fenced
 * block with the marker line above it (`<!-- snippet: NAME -->`, `<!-- program: NAME -->`, `<!-- excerpt -->`,
 * `<!-- run -->` …). The snippet tests extract from here, so a snippet moved between pages stays tested.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const root = join(import.meta.dirname, '..', '..')
/** Where extracted snippets are written: inside the repository, so `import … from 'codeact'` is this package. */
export const snippetDir = join(root, 'test', 'clients', '.snippets')

export interface Block {
  file: string
  /** 1-based line of the opening fence. */
  line: number
  lang: string
  /** The marker comment on the line above the fence, without `<!--` and `-->`, or '' when there is none. */
  marker: string
  text: string
}

/** README.md, CONTRIBUTING.md and docs/*.md, as paths relative to the repository. */
export function docFiles(): string[] {
  const pages = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`)
  return ['README.md', 'CONTRIBUTING.md', ...pages]
}

export function read(file: string): string {
  return readFileSync(join(root, file), 'utf8')
}

/** Every fenced block of a page (``` or ~~~ fences of three or more). */
export function blocks(file: string): Block[] {
  const lines = read(file).split('\n')
  const out: Block[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]!)
    if (!open) continue
    const fence = open[1]!
    let end = i + 1
    while (end < lines.length && !lines[end]!.startsWith(fence)) end++
    const marker = /^<!--\s*(.*?)\s*-->$/.exec(lines[i - 1] ?? '')?.[1] ?? ''
    out.push({ file, line: i + 1, lang: open[2]!, marker, text: `${lines.slice(i + 1, end).join('\n')}\n` })
    i = end
  }
  return out
}

export function allBlocks(): Block[] {
  return docFiles().flatMap(blocks)
}

/** The marked blocks of one kind (`snippet`, `program`, `config`), by name; a name used twice throws. */
export function named(kind: string): Map<string, Block> {
  const found = new Map<string, Block>()
  for (const b of allBlocks()) {
    const m = new RegExp(`^${kind}: (\\S+)$`).exec(b.marker)
    if (!m) continue
    const prior = found.get(m[1]!)
    if (prior) throw new Error(`${kind} ${m[1]} is in ${prior.file}:${prior.line} and ${b.file}:${b.line}`)
    found.set(m[1]!, b)
  }
  return found
}

/** Writes every `snippet:` block to snippetDir as NAME.ts and returns the names and paths. */
export function extractSnippets(): Map<string, string> {
  mkdirSync(snippetDir, { recursive: true })
  const files = new Map<string, string>()
  for (const [name, block] of named('snippet')) {
    const file = join(snippetDir, `${name}.ts`)
    writeFileSync(file, block.text)
    files.set(name, file)
  }
  return files
}

/**
 * A project as `npm install codeact` leaves it, without the network: the package and its bin linked in, and
 * each `<!-- program: NAME -->` block whose first line is `// FILE.ts` saved as FILE.ts, as its page says.
 */
export function scratchProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'codeact-docs-'))
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true })
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }))
  symlinkSync(root, join(dir, 'node_modules', 'codeact'))
  symlinkSync(join('..', 'codeact', 'bin', 'codeact.mjs'), join(dir, 'node_modules', '.bin', 'codeact'))
  for (const block of named('program').values()) {
    const file = /^\/\/ ([\w.-]+\.ts)\b/.exec(block.text)?.[1]
    if (file) writeFileSync(join(dir, file), block.text)
  }
  return dir
}

/** `npx` as a user runs it in that project, kept off the network: a missing package fails instead of downloading. */
export const offlineEnv = { ...process.env, npm_config_offline: 'true', NO_COLOR: '1' }

/** Runs a shell block whole (`bash -euo pipefail`) in a fresh scratch project, as a user would paste it. */
export function runShell(block: Block): SpawnSyncReturns<string> {
  const cwd = scratchProject()
  try {
    return spawnSync('bash', ['-euo', 'pipefail', '-c', block.text], { cwd, encoding: 'utf8', env: offlineEnv, timeout: 120_000 })
  } finally {
    rmSync(cwd, { recursive: true, force: true })
  }
}
