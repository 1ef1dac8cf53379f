/**
 * `make lint` is a gate, so it is tested like one: on a scratch copy of the tracked tree it passes, and each
 * slip a contributor might make — an import that points up a layer, a cycle (type-only imports counted), an
 * export nobody uses, a formatting slip, a function in runtime/ too long to read in one screen — makes the
 * step that owns it fail and name the file. CONTRIBUTING.md's layer table and the lint config's
 * table must agree.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

const repo = join(import.meta.dirname, '../..')
let scratch: string

/** A scratch copy of what git tracks (plus the installed node_modules and dist, linked), as a fresh clone has. */
function copyTree(): string {
  const dir = mkdtempSync(join(tmpdir(), 'codeact-lint-'))
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean)
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true })
    try {
      cpSync(join(repo, f), join(dir, f))
    } catch {
      // deleted in the work tree but still in the index
    }
  }
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'))
  symlinkSync(join(repo, 'dist'), join(dir, 'dist'))
  execFileSync('git', ['init', '-q'], { cwd: dir })
  return dir
}

function lint(step: 'types' | 'js' | 'code' | 'layers' | 'dead' | 'size'): { status: number; output: string } {
  const r = spawnSync('npm', ['run', '-s', `lint:${step}`], { cwd: scratch, encoding: 'utf8' })
  return { status: r.status ?? -1, output: `${r.stdout}\n${r.stderr}` }
}

/** Apply a slip to one file of the scratch tree for one test, then put the file back. */
function withSlip(file: string, edit: (text: string) => string, check: () => void): void {
  const path = join(scratch, file)
  const before = readFileSync(path, 'utf8')
  writeFileSync(path, edit(before))
  try {
    check()
  } finally {
    writeFileSync(path, before)
  }
}

beforeAll(() => {
  scratch = copyTree()
})
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('make lint on a clean copy of the tree', () => {
  test.each(['js', 'code', 'layers', 'dead', 'size'] as const)('%s passes', (step) => {
    const r = lint(step)
    expect(r.output).not.toMatch(/error/i)
    expect(r.status).toBe(0)
  })
})

describe('each slip fails the step that owns it', () => {
  test('an import that points up a layer (a backend importing the orchestration)', () => {
    withSlip(
      'sandbox/types.ts',
      (t) => `${t}\nimport type { Runtime } from '../runtime/create-runtime.js'\nexport type UpwardProbe = Runtime\n`,
      () => {
        const r = lint('layers')
        expect(r.status).not.toBe(0)
        expect(r.output).toContain('sandbox/types.ts → runtime/create-runtime.ts')
        expect(r.output).toContain('no-upward-import')
      },
    )
  })

  test('the vocabulary importing anything of the project', () => {
    withSlip(
      'vocabulary/types.ts',
      (t) => `${t}\nexport { DEFAULT_LIMITS as Probe } from '../runtime/limits.js'\n`,
      () => {
        const r = lint('layers')
        expect(r.status).not.toBe(0)
        expect(r.output).toContain('vocabulary/types.ts → runtime/limits.ts')
      },
    )
  })

  test('two modules that import each other through type-only imports', () => {
    const a = join(scratch, 'runtime/cycle-probe-a.ts')
    const b = join(scratch, 'runtime/cycle-probe-b.ts')
    writeFileSync(a, "import type { B } from './cycle-probe-b.js'\nexport interface A {\n  b?: B\n}\n")
    writeFileSync(b, "import type { A } from './cycle-probe-a.js'\nexport interface B {\n  a?: A\n}\n")
    try {
      const r = lint('layers')
      expect(r.status).not.toBe(0)
      expect(r.output).toContain('no-circular')
      expect(r.output).toMatch(/runtime\/cycle-probe-a\.ts →\s+runtime\/cycle-probe-b\.ts →\s+runtime\/cycle-probe-a\.ts/)
    } finally {
      rmSync(a)
      rmSync(b)
    }
  })

  test('a type-only cycle through a module that is already there', () => {
    withSlip(
      'runtime/limits.ts',
      (t) => `${t}\nimport type { RunCodeDeps } from './run-inputs.js'\nexport type CycleProbe = RunCodeDeps['limits']\n`,
      () => {
        const r = lint('layers')
        expect(r.status).not.toBe(0)
        expect(r.output).toContain('no-circular')
        expect(r.output).toContain('runtime/limits.ts')
      },
    )
  })

  test('a function in runtime/ over 80 lines, an arrow in an object as much as a declaration', () => {
    const file = join(scratch, 'runtime/long-probe.ts')
    const body = (n: number) => Array.from({ length: n }, (_, i) => `    total += ${i}`).join('\n')
    // 81 lines from the arrow's parameters to its closing brace; the 80-line one beside it is within the rule.
    const arrow = (name: string, n: number) => `  ${name}: (): number => {\n    let total = 0\n${body(n)}\n    return total\n  },\n`
    writeFileSync(file, `export const probes = {\n${arrow('longProbe', 77)}${arrow('fitsProbe', 76)}}\n`)
    try {
      const r = lint('size')
      expect(r.status).not.toBe(0)
      expect(r.output).toContain('runtime/long-probe.ts:2 longProbe is 81 lines')
      expect(r.output).not.toContain('fitsProbe')
    } finally {
      rmSync(file)
    }
  })

  test('an export nobody imports', () => {
    withSlip(
      'runtime/limits.ts',
      (t) => `${t}\nexport const unusedLintProbe = 1\n`,
      () => {
        const r = lint('dead')
        expect(r.status).not.toBe(0)
        expect(r.output).toMatch(/unusedLintProbe\s+runtime\/limits\.ts/)
      },
    )
  })

  test('a file nothing imports', () => {
    const file = join(scratch, 'runtime/orphan-lint-probe.ts')
    writeFileSync(file, 'export const orphan = 1\n')
    try {
      const r = lint('dead')
      expect(r.status).not.toBe(0)
      expect(r.output).toContain('runtime/orphan-lint-probe.ts')
    } finally {
      rmSync(file)
    }
  })

  test('a formatting slip', () => {
    withSlip(
      'runtime/limits.ts',
      (t) => t.replace(/\n\n/, '\n\n\n\nconst   spaced   =   "double quotes";void spaced\n'),
      () => {
        const r = lint('code')
        expect(r.status).not.toBe(0)
        expect(r.output).toContain('runtime/limits.ts')
      },
    )
  })
})

describe('JavaScript is type-checked or it fails the gate', () => {
  test('make lint runs the JavaScript step', () => {
    expect(readFileSync(join(repo, 'scripts/lint.mjs'), 'utf8')).toMatch(/const steps = \[[^\]]*'js'/)
  })

  test('a .mjs file no tsconfig checks, planted anywhere in the tree, fails it by name', () => {
    for (const file of ['sandbox/docker/planted-lint-probe.mjs', 'tools/planted-lint-probe.cjs', 'planted-lint-probe.js']) {
      const path = join(scratch, file)
      mkdirSync(dirname(path), { recursive: true })
      writeFileSync(path, 'export const probe = 1\n')
      try {
        const r = lint('js')
        expect(r.status, file).not.toBe(0)
        expect(r.output).toContain(`${file}: no tsconfig type-checks it`)
      } finally {
        rmSync(path)
      }
    }
  })

  test('a type error in a checked script, in bin/ or in the lint config fails the type step by name', () => {
    const files = ['scripts/soak.mjs', 'bin/codeact.mjs', '.dependency-cruiser.cjs']
    const before = files.map((f) => readFileSync(join(scratch, f), 'utf8'))
    for (const [i, f] of files.entries()) writeFileSync(join(scratch, f), `${before[i]}\n;(1).toUpperCase()\n`)
    try {
      const r = lint('types')
      expect(r.status).not.toBe(0)
      for (const f of files) expect(r.output).toMatch(new RegExp(`${f.replace(/\./g, '\\.')}\\(\\d+,\\d+\\): error TS2339`))
    } finally {
      for (const [i, f] of files.entries()) writeFileSync(join(scratch, f), before[i] as string)
    }
  })
})

describe('the layer table', () => {
  test('CONTRIBUTING.md and the lint config list the same layers in the same order', () => {
    const require = createRequire(import.meta.url)
    const config = require(join(repo, '.dependency-cruiser.cjs')) as { LAYERS: { level: number; folders: string[] }[] }
    const fromConfig = config.LAYERS.map((l) => l.folders.map((f) => `${f}/`))
    const contributing = readFileSync(join(repo, 'CONTRIBUTING.md'), 'utf8')
    const line = contributing.split('\n').find((l) => l.startsWith('`vocabulary/`') && l.includes('→'))
    expect(line, 'CONTRIBUTING.md: the one-line layer order under Layers').toBeDefined()
    const fromDoc = line!
      .replace(/\.$/, '')
      .split('→')
      .map((part) => [...part.matchAll(/`([^`]+)`/g)].map((m) => m[1]))
    expect(fromDoc).toEqual(fromConfig)
  })
})
