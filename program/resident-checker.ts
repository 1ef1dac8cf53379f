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
 * The rebuild (a new checker, and its first check resolving the lib's types again) is done when the thread is idle — right after the check that reached the
 * limit has answered — and primed with that check's text, so no program's check pays for it.
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

/**
 * Resolves every union type the declarations spell, in their text's order, before any program is checked.
 * TypeScript orders a union's members by when each type was first made, so without this a message printing
 * an SDK type (`"US" | "DE" | "FR"`) would follow whichever program first mentioned one of its literals —
 * and a reused checker would word a program's notes after what it checked before.
 */
export function resolveDeclaredTypes(checker: TS.TypeChecker, files: readonly TS.SourceFile[]): void {
  const visit = (node: TS.Node): void => {
    if (ts.isUnionTypeNode(node)) checker.getTypeFromTypeNode(node)
    else ts.forEachChild(node, visit)
  }
  for (const file of files) visit(file)
}

export interface ResidentChecker {
  /** Parses `source` as a module and returns it with all its diagnostics (syntax, binding, types). */
  check(source: string): { file: TS.SourceFile; diagnostics: TS.Diagnostic[]; checker: TS.TypeChecker }
  /** Drops a pending idle rebuild (the checker is being replaced: new declarations). */
  dispose(): void
}

/**
 * A resident checker for these options and base files (SDK, ambient globals; `declared`: those whose unions are
 * resolved first, see resolveDeclaredTypes), or undefined when this TypeScript lacks the internals.
 */
export function createResidentChecker(
  options: TS.CompilerOptions,
  baseFiles: readonly TS.SourceFile[],
  declared: readonly TS.SourceFile[] = baseFiles,
): ResidentChecker | undefined {
  const internals = ts as unknown as Partial<Internals>
  const found = internals.bindSourceFile
  if (typeof found !== 'function') return undefined
  const bind = found
  const placeholder = parseFile(PLACEHOLDER, 'export {}', true)
  const host = createHost(() => [...baseFiles, placeholder])
  let checker: (TS.TypeChecker & Partial<CheckerInternals>) | undefined
  let checks = 0
  let serial = 0
  let previous: TS.Program | undefined
  let renewal: NodeJS.Immediate | undefined

  function rebuild(): TS.TypeChecker & Partial<CheckerInternals> {
    previous = ts.createProgram({ rootNames: [...baseFiles.map((f) => f.fileName), PLACEHOLDER], options, host, oldProgram: previous })
    checks = 0
    checker = previous.getTypeChecker()
    resolveDeclaredTypes(checker, declared)
    return checker
  }

  function current(): TS.TypeChecker & Partial<CheckerInternals> {
    const active = checker === undefined || checks >= MAX_CHECKS ? rebuild() : checker
    checks++
    return active
  }

  function checkWith(active: TS.TypeChecker & Partial<CheckerInternals>, source: string) {
    // A new name each time: the checker files its diagnostics by file name and keeps them.
    const file = parseFile(`/codeact/program-${++serial}.ts`, source, true)
    bind.call(ts, file, options)
    const parsed = file as TS.SourceFile & ParsedFileInternals
    const semantic = active.getDiagnostics?.call(active, file) ?? []
    const all = [...(parsed.parseDiagnostics ?? []), ...(parsed.bindDiagnostics ?? []), ...semantic]
    return { file, diagnostics: withoutSuppressed(all, file), checker: active }
  }

  /** After the check that used the checker up: rebuild it off the next check's path, primed with `source`. */
  function renewWhenIdle(source: string): void {
    if (checks < MAX_CHECKS || renewal !== undefined) return
    renewal = setImmediate(() => {
      renewal = undefined
      if (checks < MAX_CHECKS) return
      try {
        const fresh = rebuild()
        checks++
        checkWith(fresh, source)
      } catch {
        checker = undefined // the next check rebuilds on its own path (and falls back if that fails too)
      }
    })
  }

  if (typeof current().getDiagnostics !== 'function') return undefined
  return {
    check(source) {
      const result = checkWith(current(), source)
      renewWhenIdle(source)
      return result
    },
    dispose() {
      if (renewal !== undefined) clearImmediate(renewal)
      renewal = undefined
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
