/**
 * The fast path of the type check: one `ts.TypeChecker` kept across checks.
 *
 * Why: a new Program means a new TypeChecker, which resolves again every lib and SDK type the program touches
 * (Array<T>, Promise<T>, each tool's result type and its iterators) — most of a warm check's time. Here the
 * checker of a Program holding the lib and the SDK checks each new program file directly: the file is a
 * module, so nothing of it enters the global scope, and the checker's caches of global types stay valid.
 *
 * This uses two functions TypeScript does not declare (`bindSourceFile`, `TypeChecker#getDiagnostics`), so it
 * is feature-detected (`create` answers undefined when they are missing) and the checker keeps the plain
 * Program path beside it; a test compares both on every program of the suite. The checker accumulates links
 * for every node it has seen, so it is retired after `MAX_CHECKS` checks and rebuilt from the cached files.
 */
import type TS from 'typescript'
import { createHost, parseFile, ts } from './ts-host.js'

const MAX_CHECKS = 40
const PLACEHOLDER = '/codeact/resident.ts'

interface Internals {
  bindSourceFile(file: TS.SourceFile, options: TS.CompilerOptions): void
}
interface CheckerInternals {
  getDiagnostics(file: TS.SourceFile): readonly TS.Diagnostic[]
}
interface ParsedFileInternals {
  parseDiagnostics?: readonly TS.Diagnostic[]
  bindDiagnostics?: readonly TS.Diagnostic[]
}

export interface ResidentChecker {
  /** Parses `source` as a module and returns it with all its diagnostics (syntax, binding, types). */
  check(source: string): { file: TS.SourceFile; diagnostics: TS.Diagnostic[] }
}

/** A resident checker for these options and SDK file, or undefined when this TypeScript lacks the internals. */
export function createResidentChecker(options: TS.CompilerOptions, sdkFile: TS.SourceFile, ambient: readonly TS.SourceFile[] = []): ResidentChecker | undefined {
  const internals = ts as unknown as Partial<Internals>
  const bind = internals.bindSourceFile
  if (typeof bind !== 'function') return undefined
  const placeholder = parseFile(PLACEHOLDER, 'export {}', true)
  const host = createHost(() => [sdkFile, ...ambient, placeholder])
  let checker: (TS.TypeChecker & Partial<CheckerInternals>) | undefined
  let checks = 0
  let serial = 0
  let previous: TS.Program | undefined

  function current(): TS.TypeChecker & Partial<CheckerInternals> {
    if (checker === undefined || checks >= MAX_CHECKS) {
      previous = ts.createProgram({ rootNames: [sdkFile.fileName, ...ambient.map((f) => f.fileName), PLACEHOLDER], options, host, oldProgram: previous })
      checker = previous.getTypeChecker()
      checks = 0
    }
    checks++
    return checker
  }

  if (typeof current().getDiagnostics !== 'function') return undefined
  return {
    check(source) {
      const getDiagnostics = current().getDiagnostics
      // A new name each time: the checker files its diagnostics by file name and keeps them.
      const file = parseFile(`/codeact/program-${++serial}.ts`, source, true)
      bind.call(ts, file, options)
      const parsed = file as TS.SourceFile & ParsedFileInternals
      const semantic = getDiagnostics?.call(checker, file) ?? []
      const all = [...(parsed.parseDiagnostics ?? []), ...(parsed.bindDiagnostics ?? []), ...semantic]
      return { file, diagnostics: withoutSuppressed(all, file) }
    },
  }
}

/**
 * Drops what a `// @ts-ignore` or `// @ts-expect-error` on the line above suppresses, as a Program would
 * (the Program, not the checker, applies these comments).
 */
function withoutSuppressed(diagnostics: TS.Diagnostic[], file: TS.SourceFile): TS.Diagnostic[] {
  if (!/@ts-(ignore|expect-error)/.test(file.text)) return diagnostics
  const lines = file.text.split(/\r?\n/)
  return diagnostics.filter((d) => {
    // Walk up over blank and comment-only lines, as TypeScript does, looking for the directive.
    for (let line = ts.getLineAndCharacterOfPosition(file, d.start ?? 0).line - 1; line >= 0; line--) {
      const text = (lines[line] ?? '').trim()
      if (/^\/\/[/*\s]*@ts-(ignore|expect-error)/.test(text)) return false
      if (text !== '' && !text.startsWith('//')) return true
    }
    return true
  })
}
