/**
 * prepareLite (sdk/lite/prepare.ts) reads a program that normalising leaves as it is from one Babel parse of
 * its wrapped text (sdk/lite/one-parse.ts). Its answer — the normalised program, the source's shape proof and
 * oxc's compiled output — must be exactly the two-parse answer: normaliseLite (the script's reading, held to
 * TypeScript's by lite-differential.test.ts), then the shape proof of that text wrapped. Over the same
 * corpora, with and without node imports.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { normaliseLite } from '../../sdk/lite/normalise.js'
import { prepareLite } from '../../sdk/lite/prepare.js'
import { fastCompileLite } from '../../sdk/lite/fast-gate.js'
import { parseWrappedShapeLite } from '../../sdk/lite/shape.js'
import { loadFastCompiler } from '../../sdk/program-fast.js'
import { wrapProgram } from '../../sdk/program-wrap.js'
import { corpusPrograms, generatedPrograms } from './lite-corpus.js'

beforeAll(() => loadFastCompiler())

/** What the two-parse path answered: normalised, then the wrapped normalised text's shape and oxc's output. */
function twoParses(source: string, allowNodeImports: boolean) {
  const normalised = normaliseLite(source, { allowNodeImports })
  if (normalised.problem) return { normalised }
  const wrapped = wrapProgram(normalised.text).text
  const { shape, parsed } = parseWrappedShapeLite(wrapped, 'ts')
  return { normalised, shape, compiled: parsed && fastCompileLite(wrapped, parsed) }
}

function onePath(source: string, allowNodeImports: boolean) {
  const { normalised, shape, fast } = prepareLite(source, allowNodeImports)
  if (normalised.problem) return { normalised }
  return { normalised, shape, compiled: fast?.(wrapProgram(normalised.text).text) }
}

/** The answer, or 'too deep' where Babel's stack gives out (both callers fall back to TypeScript then). */
function settle<T>(f: () => T): T | 'too deep' {
  try {
    return f()
  } catch (e) {
    if (e instanceof RangeError) return 'too deep'
    throw e
  }
}

function differences(programs: string[]): { program: string; allowNodeImports: boolean }[] {
  const found: { program: string; allowNodeImports: boolean }[] = []
  for (const program of programs)
    for (const allowNodeImports of [false, true]) {
      const a = settle(() => twoParses(program, allowNodeImports))
      const b = settle(() => onePath(program, allowNodeImports))
      // A text just past Babel's stack may throw on one path only (the wrapped text is parsed first now):
      // either way it goes to TypeScript's path, which answers the same.
      if (a === 'too deep' || b === 'too deep') continue
      if (JSON.stringify(a) !== JSON.stringify(b)) found.push({ program, allowNodeImports })
    }
  return found
}

describe('prepareLite with one parse for a program normalising leaves alone', () => {
  it('answers as normalising and then proving the wrapped text do, for every corpus program', () => {
    const programs = corpusPrograms()
    expect(programs.length).toBeGreaterThan(300)
    expect(differences(programs)).toEqual([])
  }, 300_000)

  it('answers the same for generated variants', () => {
    expect(differences(generatedPrograms())).toEqual([])
  }, 300_000)

  it('still refuses a body that closes the wrapper early, and still compiles the texts it changes', () => {
    const early = prepareLite('return 1 })(); (async function () {', false)
    expect(early.shape?.ok).toBe(false)
    const changed = prepareLite('const a = [1, 2]\na.length', false)
    expect(changed.normalised.text).toBe('const a = [1, 2]\nreturn await (a.length)')
    expect(changed.shape).toEqual({ ok: true })
    expect(changed.fast?.(wrapProgram(changed.normalised.text).text)?.code).toContain('return await a.length')
    const same = prepareLite('return 1 + 1', false)
    expect(same.normalised).toEqual({ text: 'return 1 + 1', changes: [] })
    expect(same.fast?.(wrapProgram('return 1 + 1').text)?.code).toContain('return 1 + 1')
  })
})
