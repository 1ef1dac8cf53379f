/**
 * The pre-run type check: the model's program against the SDK declarations and the ES2023 lib, nothing else
 * (no DOM, no Node: the sandbox has neither).
 *
 * The program is the body of an async function. It is checked as a module (so top-level `await` works) and
 * the one diagnostic that shape causes, "return outside a function" (TS1108), is dropped; positions are the
 * user's own, with no wrapper to subtract.
 *
 * Speed: parsed lib files are cached for the whole process, the SDK file until its text changes, and each
 * check builds a `ts.Program` that reuses the previous one's structure, so only the program itself is parsed.
 */
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import type TS from 'typescript'
import { closestNames } from './suggest.js'

// require, not import: importing the 9 MB CommonJS file from ESM makes Node scan it for named exports first,
// which costs a few hundred milliseconds of a fresh process's first check.
const ts = createRequire(import.meta.url)('typescript') as typeof TS
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
  /** Overrides of the defaults below (e.g. `{ noImplicitAny: true }`). */
  compilerOptions?: TS.CompilerOptions
}

const PROGRAM_FILE = '/codeact/program.ts'
const SDK_FILE = '/codeact/sdk.d.ts'
const SDK_CHECK_FILE = '/codeact/sdk-check.ts'
/** "A 'return' statement can only be used within a function body": the program *is* a function body. */
const IGNORED_CODES = new Set([1108])

/**
 * Strict, but without the two rules that flag working code rather than wrong calls: untyped helper parameters
 * (noImplicitAny) and `catch (e) { e.code }` (useUnknownInCatchVariables).
 */
const DEFAULT_OPTIONS: TS.CompilerOptions = {
  target: ts.ScriptTarget.ES2023,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  moduleDetection: ts.ModuleDetectionKind.Force,
  lib: ['lib.es2023.d.ts'],
  types: [],
  strict: true,
  noImplicitAny: false,
  useUnknownInCatchVariables: false,
  allowUnreachableCode: true,
  allowUnusedLabels: true,
  skipLibCheck: true,
  noEmit: true,
  noResolve: true,
}

const LIB_DIR = dirname(ts.getDefaultLibFilePath({}))
/** Parsed lib files, shared by every checker in the process: they never change. */
const libCache = new Map<string, TS.SourceFile>()

export function createTypeChecker(options: TypeCheckerOptions = {}): TypeChecker {
  const compilerOptions: TS.CompilerOptions = { ...DEFAULT_OPTIONS, ...options.compilerOptions }
  let sdkText = ''
  let sdkFile = parse(SDK_FILE, sdkText, ts.ScriptTarget.ES2023)
  let toolNames: string[] = []
  let programFile = parse(PROGRAM_FILE, '', ts.ScriptTarget.ES2023)
  let previous: TS.Program | undefined
  let warming: Promise<void> | undefined

  const host = createHost(() => [programFile, sdkFile])

  function buildProgram(): TS.Program {
    previous = ts.createProgram({ rootNames: [SDK_FILE, PROGRAM_FILE], options: compilerOptions, host, oldProgram: previous })
    return previous
  }

  function check(source: string): TypeDiagnostic[] {
    programFile = parse(PROGRAM_FILE, source, ts.ScriptTarget.ES2023, true)
    const program = buildProgram()
    const file = program.getSourceFile(PROGRAM_FILE)
    if (file === undefined) return []
    const raw = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]
    return toDiagnostics(raw.filter((d) => !IGNORED_CODES.has(d.code)), file, toolNames)
  }

  return {
    setDeclarations(text) {
      if (text === sdkText) return
      sdkText = text
      sdkFile = parse(SDK_FILE, text, ts.ScriptTarget.ES2023)
      toolNames = declaredToolNames(sdkFile)
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
      const file = parse(SDK_CHECK_FILE, sdkText, ts.ScriptTarget.ES2023)
      const program = ts.createProgram({ rootNames: [SDK_CHECK_FILE], options: compilerOptions, host: createHost(() => [file]) })
      return toDiagnostics([...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)], file, toolNames)
    },
  }
}

/** A host over in-memory files (the program, the SDK) and the cached lib. */
function createHost(files: () => readonly TS.SourceFile[]): TS.CompilerHost {
  const find = (name: string) => files().find((f) => f.fileName === name)
  return {
    getSourceFile: (name, languageVersionOrOptions) => find(name) ?? libFile(name, languageVersionOrOptions),
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    getDefaultLibLocation: () => LIB_DIR,
    writeFile: () => {},
    getCurrentDirectory: () => '/codeact',
    getCanonicalFileName: (f) => f,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (f) => find(f) !== undefined || (f.startsWith(LIB_DIR) && ts.sys.fileExists(f)),
    readFile: (f) => find(f)?.text ?? (f.startsWith(LIB_DIR) ? ts.sys.readFile(f) : undefined),
    directoryExists: (d) => d === '/codeact' || d.startsWith(LIB_DIR),
    getDirectories: () => [],
  }
}

function parse(fileName: string, text: string, target: TS.ScriptTarget, isProgram = false): TS.SourceFile {
  return ts.createSourceFile(
    fileName,
    text,
    {
      languageVersion: target,
      // moduleDetection "force": the program is a module whatever it contains, so top-level await is allowed.
      setExternalModuleIndicator: isProgram ? (f) => ((f as { externalModuleIndicator?: unknown }).externalModuleIndicator = true) : undefined,
      // Doc comments do not change types in .ts files; skipping them halves the parse time of the lib.
      jsDocParsingMode: ts.JSDocParsingMode.ParseNone,
    },
    false,
  )
}

function libFile(fileName: string, languageVersionOrOptions: TS.ScriptTarget | TS.CreateSourceFileOptions): TS.SourceFile | undefined {
  const cached = libCache.get(fileName)
  if (cached !== undefined) return cached
  const text = ts.sys.readFile(fileName)
  if (text === undefined) return undefined
  const target = typeof languageVersionOrOptions === 'object' ? languageVersionOrOptions.languageVersion : languageVersionOrOptions
  const file = parse(fileName, text, target)
  libCache.set(fileName, file)
  return file
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

function toDiagnostics(raw: readonly TS.Diagnostic[], file: TS.SourceFile, toolNames: readonly string[]): TypeDiagnostic[] {
  const lines = file.text.split(/\r?\n/)
  const seen = new Set<string>()
  const out: TypeDiagnostic[] = []
  for (const d of [...raw].sort((a, b) => (a.start ?? 0) - (b.start ?? 0))) {
    const pos = ts.getLineAndCharacterOfPosition(file, Math.min(d.start ?? 0, file.text.length))
    const message = withSuggestion(d.code, ts.flattenDiagnosticMessageText(d.messageText, '\n'), toolNames)
    const key = `${pos.line}:${pos.character}:${d.code}:${message}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push({ line: pos.line + 1, column: pos.character + 1, code: d.code, message, lineText: lines[pos.line] ?? '' })
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
