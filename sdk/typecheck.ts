/**
 * The pre-run type check: the model's program against the SDK declarations and the ES2023 lib, nothing else
 * (no DOM, no Node: the sandbox has neither).
 *
 * The program is the body of an async function. It is checked as a module (so top-level `await` works) and
 * the one diagnostic that shape causes, "return outside a function" (TS1108), is dropped; positions are the
 * user's own, with no wrapper to subtract.
 *
 * Speed: parsed lib files are cached for the whole process, the SDK file until its text changes; a resident
 * checker (resident-checker.ts) keeps the resolved lib and SDK types across checks, and where it is not
 * available each check builds a `ts.Program` reusing the previous one's structure.
 */
import type TS from 'typescript'
import { createResidentChecker, type ResidentChecker } from './resident-checker.js'
import { closestNames } from './suggest.js'
import { createHost, DEFAULT_OPTIONS, parseFile, ts } from './ts-host.js'

/** One problem in the user's program, in its own 1-based coordinates. */
export interface TypeDiagnostic {
  line: number
  column: number
  /** The TypeScript error code, e.g. 2345. */
  code: number
  message: string
  /** The source line the problem is on. */
  lineText: string
}

export interface TypeChecker {
  /** Sets the SDK text (from `renderDeclarations`); the next check uses it, reusing the parsed lib. */
  setDeclarations(text: string): void
  /** Type-checks a program; empty when it is well typed. Never throws for anything the program contains. */
  check(source: string): TypeDiagnostic[]
  /** Parses the lib and the SDK and builds a checker once, off the current tick; call at runtime creation. */
  warm(): Promise<void>
  /** Problems in the declarations themselves (a generator bug if not empty), in the SDK text's coordinates. */
  declarationDiagnostics(): TypeDiagnostic[]
}

export interface TypeCheckerOptions {
  /** Overrides of the defaults in ts-host.ts (e.g. `{ noImplicitAny: true }`). */
  compilerOptions?: TS.CompilerOptions
  /**
   * Keep one TypeScript checker across checks (resident-checker.ts): about twice as fast when warm. Default
   * true; false uses only public API, a new Program per check reusing the parsed lib and SDK.
   */
  resident?: boolean
  /**
   * More declaration files checked with every program, e.g. Node's types where the sandbox has Node (the
   * Docker backend): `{ fileName, text }`, parsed once per process. Default none.
   */
  ambientFiles?: readonly AmbientFile[]
}

export interface AmbientFile {
  fileName: string
  text: string
}

/** Parsed ambient files, shared by every checker in the process (like the lib): keyed by name and text length. */
const ambientCache = new Map<string, TS.SourceFile>()
function parseAmbient(files: readonly AmbientFile[]): TS.SourceFile[] {
  return files.map((f) => {
    const key = `${f.fileName}:${f.text.length}`
    let parsed = ambientCache.get(key)
    if (parsed === undefined) ambientCache.set(key, (parsed = parseFile(f.fileName, f.text)))
    return parsed
  })
}

const PROGRAM_FILE = '/codeact/program.ts'
const SDK_FILE = '/codeact/sdk.d.ts'
const SDK_CHECK_FILE = '/codeact/sdk-check.ts'
/**
 * The program is checked as what it is, the body of an async function: TypeScript does not check the
 * expression of a `return` outside a function at all, so dropping TS1108 from a module-level check would
 * let `return await tools.misspelled()` through. The head sits on its own line; positions move by one line.
 * A namespace inside a function is TS1235 — legal here, because the compiler hoists it (runtime/compile.ts).
 */
const WRAP_HEAD = 'async function __codeactProgram__() {\n'
const WRAP_TAIL = '\n}\n'
const IGNORED_CODES = new Set([1108, 1235])

export function createTypeChecker(options: TypeCheckerOptions = {}): TypeChecker {
  const compilerOptions: TS.CompilerOptions = { ...DEFAULT_OPTIONS, ...options.compilerOptions }
  let sdkText = ''
  let sdkFile = parseFile(SDK_FILE, sdkText)
  let toolNames: string[] = []
  let programFile = parseFile(PROGRAM_FILE, '', true)
  let previous: TS.Program | undefined
  let resident: ResidentChecker | undefined
  let warming: Promise<void> | undefined

  const ambient = parseAmbient(options.ambientFiles ?? [])
  const ambientNames = ambient.map((f) => f.fileName)
  const host = createHost(() => [programFile, sdkFile, ...ambient])

  function buildProgram(): TS.Program {
    previous = ts.createProgram({ rootNames: [SDK_FILE, ...ambientNames, PROGRAM_FILE], options: compilerOptions, host, oldProgram: previous })
    return previous
  }

  /** The plain path: a Program per check; only the program file is new, the rest is reused. */
  function checkWithProgram(source: string): { file: TS.SourceFile; diagnostics: readonly TS.Diagnostic[] } {
    programFile = parseFile(PROGRAM_FILE, source, true)
    const program = buildProgram()
    const file = program.getSourceFile(PROGRAM_FILE) ?? programFile
    return { file, diagnostics: [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)] }
  }

  function check(source: string): TypeDiagnostic[] {
    if (options.resident !== false) resident ??= createResidentChecker(compilerOptions, sdkFile, ambient)
    let checked: { file: TS.SourceFile; diagnostics: readonly TS.Diagnostic[] }
    try {
      checked = resident?.check(WRAP_HEAD + source + WRAP_TAIL) ?? checkWithProgram(WRAP_HEAD + source + WRAP_TAIL)
    } catch {
      // A compiler crash is ours, not the program's: retry on the plain path, and if that fails too, say
      // nothing rather than block a program that may well be fine (the check is advisory, the run is not).
      resident = undefined
      try {
        checked = checkWithProgram(WRAP_HEAD + source + WRAP_TAIL)
      } catch {
        return []
      }
    }
    return toDiagnostics(checked.diagnostics.filter((d) => !IGNORED_CODES.has(d.code)), checked.file, toolNames, source)
  }

  return {
    setDeclarations(text) {
      if (text === sdkText) return
      sdkText = text
      sdkFile = parseFile(SDK_FILE, text)
      toolNames = declaredToolNames(sdkFile)
      resident = undefined // rebuilt on the next check, around the new SDK file
    },
    check,
    warm() {
      warming ??= new Promise<void>((resolve) => {
        // Off the current tick, so creating a runtime returns first; the work itself is synchronous.
        setImmediate(() => {
          check('const warm: Promise<unknown[]> = Promise.all([tools, console]);')
          resolve()
        })
      })
      return warming
    },
    declarationDiagnostics() {
      // skipLibCheck skips .d.ts files, so the SDK text is checked once more as an ordinary .ts file.
      const file = parseFile(SDK_CHECK_FILE, sdkText)
      const program = ts.createProgram({ rootNames: [SDK_CHECK_FILE], options: compilerOptions, host: createHost(() => [file]) })
      return toDiagnostics([...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)], file, toolNames)
    },
  }
}

/** The method names of `interface Tools` in the SDK text, for "did you mean" on a misspelled tool. */
function declaredToolNames(sdk: TS.SourceFile): string[] {
  for (const statement of sdk.statements) {
    if (ts.isInterfaceDeclaration(statement) && statement.name.text === 'Tools') {
      return statement.members.flatMap((m) => (m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)) ? [m.name.text] : []))
    }
  }
  return []
}

/** `userSource`, when given, is the program as the user wrote it; `file` holds it wrapped one line down. */
function toDiagnostics(raw: readonly TS.Diagnostic[], file: TS.SourceFile, toolNames: readonly string[], userSource?: string): TypeDiagnostic[] {
  const lines = (userSource ?? file.text).split(/\r?\n/)
  const shift = userSource === undefined ? 0 : 1
  const seen = new Set<string>()
  const out: TypeDiagnostic[] = []
  for (const d of [...raw].sort((a, b) => (a.start ?? 0) - (b.start ?? 0))) {
    const pos = ts.getLineAndCharacterOfPosition(file, Math.min(d.start ?? 0, file.text.length))
    const message = withSuggestion(d.code, ts.flattenDiagnosticMessageText(d.messageText, '\n'), toolNames)
    const key = `${pos.line}:${pos.character}:${d.code}:${message}`
    if (seen.has(key)) continue
    seen.add(key)
    const line = Math.min(Math.max(pos.line - shift, 0), lines.length - 1)
    const column = line === pos.line - shift ? pos.character + 1 : 1
    out.push({ line: line + 1, column, code: d.code, message, lineText: lines[line] ?? '' })
  }
  return out
}

/** Adds the tool names a misspelled or unqualified tool call most likely meant. */
function withSuggestion(code: number, message: string, toolNames: readonly string[]): string {
  const missing = /^Property '([^']+)' does not exist on type 'Tools'\.$/.exec(message)
  if (code === 2339 && missing?.[1] !== undefined) {
    const close = closestNames(missing[1], toolNames)
    if (close.length > 0) return `${message} Did you mean ${close.map((n) => `'${n}'`).join(', ')}?`
    const listed = toolNames.slice(0, 12).join(', ')
    return `${message} Tools: ${listed}${toolNames.length > 12 ? ', ...' : ''}`
  }
  if (/^(Type|Argument of type) 'Promise<|does not exist on type 'Promise</.test(message)) return `${message} Did you forget \`await\`?`
  // TypeScript's advice ("install @types/node", "add 'dom' to lib") does not apply: the sandbox has neither.
  if (code === 2580 || code === 2591 || code === 2584 || code === 2582 || code === 2593) {
    const name = /^Cannot find name '([^']+)'/.exec(message)?.[1] ?? ''
    return `Cannot find name '${name}'. The program runs in a sandbox without Node or browser APIs; use the tools.`
  }
  const unqualified = /^Cannot find name '([^']+)'/.exec(message)
  if (code === 2304 && unqualified?.[1] !== undefined && toolNames.includes(unqualified[1])) {
    return `${message} Call the tool as \`await tools.${unqualified[1]}(args)\`.`
  }
  return message
}
