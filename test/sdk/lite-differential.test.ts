import { writeFileSync } from 'node:fs'
import { transform } from 'esbuild'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { checkWrappedShapeLite, topLevelNamespaceSpansLite } from '../../sdk/lite/shape.js'
import { normaliseLite } from '../../sdk/lite/normalise.js'
import { checkWrappedShape, topLevelNamespaceSpans } from '../../sdk/program-shape.js'
import { normaliseProgram, type NormaliseOptions } from '../../sdk/program-text.js'
import { wrapProgram } from '../../sdk/program-wrap.js'
import { corpusPrograms, generatedPrograms } from './lite-corpus.js'

function parsesCleanly(text: string): boolean {
  const file = ts.createSourceFile('p.ts', text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS)
  return ((file as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics ?? []).length === 0
}

const OPTIONS: NormaliseOptions[] = [{}, { allowNodeImports: true }, { session: true }]

async function esbuildOutput(wrapped: string): Promise<string | undefined> {
  try {
    return (
      await transform(wrapped, { loader: 'ts', target: 'es2022', tsconfigRaw: { compilerOptions: { useDefineForClassFields: true } } })
    ).code
  } catch {
    return undefined
  }
}

/** The lite answer, or TypeScript's where the lite parser's stack gives out (the thread falls back to it then). */
function orFallback<T>(lite: () => T, typescript: () => T): T {
  try {
    return lite()
  } catch (e) {
    if (e instanceof RangeError) return typescript()
    throw e
  }
}

/**
 * Texts the two read differently, each a syntax error (or a checker's error) that TypeScript's parser
 * recovers from: in each the lite reading is the one esbuild and V8 have, and none makes either proof accept
 * a text the other refuses. Matched as substrings of the program.
 */
const KNOWN: { text: string; why: string }[] = [
  { text: '\nwith (o)', why: 'TypeScript reads `with` on the line after an import as import attributes (a syntax error to it)' },
  {
    text: '?.',
    why: 'a template after an optional chain (`a?.b()\n`x``) is a syntax error (tagged template in an optional chain); TypeScript parses it',
  },
  { text: 'yield', why: 'TypeScript recovers `yield`/`await` used as an identifier where the body of an async function forbids it' },
  {
    text: '<!--',
    why: 'both proofs refuse the text; TypeScript says a `}` closes the program, Babel (no Annex B comments) cannot parse it',
  },
  { text: '-->', why: 'as `<!--`: refused by both, with different messages' },
  {
    text: '/(/',
    why: 'an invalid regular expression (an unclosed group): acorn refuses the text, TypeScript and esbuild let it through and V8 refuses it when the program is parsed; the run fails either way',
  },
]

/** Whole programs the two read differently (as KNOWN). */
const KNOWN_EXACT: { text: string; why: string }[] = []

function known(program: string): boolean {
  return KNOWN.some((k) => program.includes(k.text)) || KNOWN_EXACT.some((k) => program === k.text)
}

async function differences(programs: string[]) {
  const found: { program: string; what: string; ts: unknown; lite: unknown }[] = []
  for (const program of programs) {
    if (known(program)) continue
    for (const options of OPTIONS) {
      const a = normaliseProgram(program, options)
      const b = orFallback(
        () => normaliseLite(program, options),
        () => a,
      )
      if (JSON.stringify(a) !== JSON.stringify(b)) found.push({ program, what: `normalise ${JSON.stringify(options)}`, ts: a, lite: b })
    }
    for (const text of [program, normaliseProgram(program).text]) {
      const wrapped = wrapProgram(text).text
      const a = checkWrappedShape(wrapped, 'ts')
      const b = orFallback(
        () => checkWrappedShapeLite(wrapped, 'ts'),
        () => a,
      )
      const js = await esbuildOutput(wrapped)
      // A shape answer matters only for a text esbuild compiles (runtime/compile.ts asks after esbuild).
      if (js !== undefined && JSON.stringify(a) !== JSON.stringify(b)) found.push({ program: text, what: 'shape ts', ts: a, lite: b })
      if (js !== undefined) {
        const c = checkWrappedShape(js, 'js')
        const d = orFallback(
          () => checkWrappedShapeLite(js, 'js'),
          () => c,
        )
        if (JSON.stringify(c) !== JSON.stringify(d)) found.push({ program: text, what: 'shape js', ts: c, lite: d })
      }
    }
    // Spans are asked for a text esbuild rejected for its namespaces; on a text with syntax errors each
    // parser recovers its own way (and esbuild reports the errors of the spliced text anyway).
    const n1 = parsesCleanly(program) ? topLevelNamespaceSpans(program) : []
    const n2 = parsesCleanly(program)
      ? orFallback(
          () => topLevelNamespaceSpansLite(program),
          () => n1,
        )
      : []
    if (JSON.stringify(n1) !== JSON.stringify(n2)) found.push({ program, what: 'namespaces', ts: n1, lite: n2 })
  }
  return found
}

describe('sdk/lite against sdk/program-text.ts and program-shape.ts', () => {
  it('gives the same answers for every corpus program', async () => {
    const programs = corpusPrograms()
    expect(programs.length).toBeGreaterThan(300)
    const found = await differences(programs)
    if (process.env.LITE_DUMP) writeFileSync(`${process.env.LITE_DUMP}-corpus.json`, JSON.stringify(found, null, 1))
    expect(found.length).toBe(0)
  }, 600_000)
  it('gives the same answers for generated variants', async () => {
    const programs = generatedPrograms()
    const found = await differences(programs)
    if (process.env.LITE_DUMP) writeFileSync(`${process.env.LITE_DUMP}-generated.json`, JSON.stringify(found, null, 1))
    expect(found.length).toBe(0)
  }, 600_000)
})
