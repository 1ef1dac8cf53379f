/**
 * The pre-run type check: the model's program against the SDK declarations and the ES2023 lib, nothing else
 * (no DOM, no Node: the sandbox has neither).
 *
 * The program is the body of an async function. Every diagnostic is classified by the blocking rule
 * (typecheck-rule.ts): `error` (the run would certainly go wrong: it is stopped) or `note` (working JavaScript
 * that strict TypeScript does not like: said once, after the result); blocking messages name the fix
 * (typecheck-hints.ts). Positions are the user's own.
 *
 * Speed: parsed lib files are cached for the whole process, the SDK file until its text changes; a resident
 * checker (resident-checker.ts) keeps the resolved lib and SDK types across checks, and where it is not
 * available each check builds a `ts.Program` reusing the previous one's structure.
 */
import type TS from 'typescript'
import { builtinsName } from './builtins.js'
import { words } from './normalise-rules.js'
import { wrapProgram, WRAP_LINE_OFFSET } from './normalise.js'
import { createResidentChecker, resolveDeclaredTypes, type ResidentChecker } from './resident-checker.js'
import { emitDeclarations, sessionContext, wrapperBody } from './session-types.js'
import { pythonLine, pythonMessage } from './python.js'
import { missingGlobalHint, SANDBOX_GLOBALS, toolPrefixHint, toolRef, unknownToolHint } from './typecheck-hints.js'
import { opener, unbalancedBracket } from './typecheck-braces.js'
import { checkToolCalls, parseLegend, type Finding, type Legend } from './call-constraints.js'
import { CODEACT_CODES } from './rule-table.js'
import { classify, nodeAt, type Verdict } from './typecheck-rule.js'
import { SDK_FILE } from './type-shapes.js'
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
  /** `error` stops the run (the blocking rule, typecheck-rule.ts); `note` is said after the result. */
  severity: 'error' | 'note'
  /** For notes: what they share (one untyped result, one widened field); the runtime says each cause once. */
  cause?: string
  /** The row of the rule's table (program/rule-table.ts) that decided it. */
  rule?: string
}

export interface TypeChecker {
  /** Sets the SDK text (from `renderDeclarations`); the next check uses it, reusing the parsed lib. */
  setDeclarations(text: string): void
  /** Type-checks a program; empty when it is well typed. Never throws for anything the program contains. */
  check(source: string): TypeDiagnostic[]
  /**
   * Checks a session cell with the session's earlier `declarations` (program/session-types.ts) as globals, and
   * writes down the declarations after it; `declarations` is undefined when the cell did not check far
   * enough to say (a syntax error, a compiler crash): the caller keeps the earlier ones.
   */
  checkSession(source: string, declarations: string): { diagnostics: TypeDiagnostic[]; declarations?: string }
  /** Parses the lib and the SDK and builds a checker once, off the current tick; call at runtime creation. */
  warm(): Promise<void>
  /** Problems in the declarations themselves (a generator bug if not empty), in the SDK text's coordinates. */
  declarationDiagnostics(): TypeDiagnostic[]
}

export interface TypeCheckerOptions {
  /**
   * Keep one TypeScript checker across checks (resident-checker.ts): about twice as fast when warm. Default
   * true; false uses only public API, a new Program per check reusing the parsed lib and SDK.
   */
  resident?: boolean
  /** More declarations checked with every program (Node's types where the program has Node: Docker). */
  ambientFiles?: readonly AmbientFile[]
}

/** A declaration file the checker sees beside the SDK (diagnostics inside it are never reported). */
export interface AmbientFile {
  fileName: string
  text: string
}

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
const SDK_CHECK_FILE = '/codeact/sdk-check.ts'
const GLOBALS_FILE = '/codeact/sandbox-globals.d.ts'
const globalsFile = parseFile(GLOBALS_FILE, SANDBOX_GLOBALS)
/**
 * The program is checked as what it is, the body of an async function, inside the very wrapper the compiler
 * puts around it (program/normalise.ts): one text for both, so nothing is code to one and a comment to the
 * other, and positions move by the wrapper's one head line. A namespace inside a function is TS1235 — legal
 * here, because the compiler hoists it (runtime/compile.ts); TS1108 stays ignored for callers that pass an
 * unwrapped text.
 */
const IGNORED_CODES = new Set([1108, 1235])

export function createTypeChecker(options: TypeCheckerOptions = {}): TypeChecker {
  const compilerOptions = DEFAULT_OPTIONS
  let sdkText = ''
  let sdkFile = parseFile(SDK_FILE, sdkText)
  let toolNames: string[] = []
  let legend: Legend = new Map()
  /** Type names that resolve at a program's top level: a printed session declaration using only these stands alone. */
  let globalTypes = new Set([...LIB_TYPES, ...topLevelNames(globalsFile)])
  let programFile = parseFile(PROGRAM_FILE, '', true)
  let previous: TS.Program | undefined
  let resident: ResidentChecker | undefined
  let warming: Promise<void> | undefined

  const ambient = parseAmbient(options.ambientFiles ?? [])
  const host = createHost(() => [programFile, sdkFile, globalsFile, ...ambient])

  function buildProgram(): TS.Program {
    const rootNames = [GLOBALS_FILE, SDK_FILE, ...ambient.map((f) => f.fileName), PROGRAM_FILE]
    previous = ts.createProgram({ rootNames, options: compilerOptions, host, oldProgram: previous })
    return previous
  }

  /** The plain path: a Program per check; only the program file is new, the rest is reused. */
  function checkWithProgram(source: string): Checked {
    programFile = parseFile(PROGRAM_FILE, source, true)
    const program = buildProgram()
    const file = program.getSourceFile(PROGRAM_FILE) ?? programFile
    const checker = program.getTypeChecker()
    resolveDeclaredTypes(checker, [globalsFile, sdkFile])
    const diagnostics = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]
    return { file, diagnostics, checker }
  }

  /** The wrapped program (after `prefix`, module-level declarations) through the resident checker or a Program. */
  function checkText(text: string): Checked | undefined {
    if (options.resident !== false)
      resident ??= createResidentChecker(compilerOptions, [globalsFile, sdkFile, ...ambient], [globalsFile, sdkFile])
    try {
      return resident?.check(text) ?? checkWithProgram(text)
    } catch {
      // A compiler crash is ours, not the program's: retry on the plain path, and if that fails too, say
      // nothing rather than block a program that may well be fine (the check is advisory, the run is not).
      resident?.dispose()
      resident = undefined
      try {
        return checkWithProgram(text)
      } catch {
        return undefined
      }
    }
  }

  function run(source: string, prefix = '', prefixLines = 0): { diagnostics: TypeDiagnostic[]; checked?: Checked } {
    const checked = checkText(prefix + wrapProgram(source).text)
    if (checked === undefined) return { diagnostics: [] }
    // What is reported inside the prefix (a session's earlier declarations) is not the program's.
    const prefixEnd = prefix.length
    const raw = checked.diagnostics.filter((d) => !IGNORED_CODES.has(d.code) && (d.start === undefined || d.start >= prefixEnd))
    const pythonAt = raw.some((d) => d.code < 2000) ? pythonLine(source) : undefined
    if (pythonAt) {
      const python: TypeDiagnostic = {
        line: pythonAt.line,
        column: 1,
        code: raw[0]?.code ?? 1005,
        message: pythonMessage(pythonAt),
        lineText: source.split(/\r?\n/)[pythonAt.line - 1] ?? '',
        severity: 'error',
      }
      return { diagnostics: [python] }
    }
    if (raw.some((d) => d.code < 2000)) {
      // TypeScript places a missing `}` past the program's end; say which bracket, on its own line.
      const bracket = unbalancedBracket(source)
      if (bracket !== undefined)
        return { diagnostics: [{ ...bracket, code: 1005, lineText: source.split(/\r?\n/)[bracket.line - 1] ?? '', severity: 'error' }] }
    }
    const found = [...raw, ...ownChecks(checked, toolNames, legend, prefixEnd)]
    return { diagnostics: toDiagnostics(found, checked.file, toolNames, source, checked.checker, prefixLines), checked }
  }

  function check(source: string): TypeDiagnostic[] {
    return run(source).diagnostics
  }

  function checkSession(source: string, declarations: string): { diagnostics: TypeDiagnostic[]; declarations?: string } {
    const context = sessionContext(declarations)
    const { diagnostics, checked } = run(source, context.prefix, context.lines)
    if (checked === undefined || diagnostics.some((d) => d.code < 2000)) return { diagnostics }
    // The lines of a declarations text that do not check by themselves (against the lib and the SDK).
    const problemLines = (text: string): Set<number> => {
      const alone = checkText(`${text}\n${wrapProgram('').text}`)
      const lines = new Set<number>()
      for (const d of alone?.diagnostics ?? [])
        if (d.start !== undefined && d.start < text.length) lines.add(ts.getLineAndCharacterOfPosition(alone!.file, d.start).line)
      return lines
    }
    const body = wrapperBody(checked.file)
    return { diagnostics, declarations: emitDeclarations(context, checked.file, body, checked.checker, problemLines, globalTypes) }
  }

  return {
    setDeclarations(text) {
      if (text === sdkText) return
      sdkText = text
      sdkFile = parseFile(SDK_FILE, text)
      toolNames = declaredToolNames(sdkFile)
      legend = parseLegend(text)
      globalTypes = new Set([...LIB_TYPES, ...topLevelNames(sdkFile), ...topLevelNames(globalsFile)])
      resident?.dispose()
      resident = undefined // rebuilt on the next check, around the new SDK file
    },
    check,
    checkSession,
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
      const program = ts.createProgram({
        rootNames: [GLOBALS_FILE, SDK_CHECK_FILE],
        options: compilerOptions,
        host: createHost(() => [file, globalsFile]),
      })
      return toDiagnostics([...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)], file, toolNames)
    },
  }
}

/** Generic and object types of the ES lib that printed types use (a name not here only costs a check). */
const LIB_TYPES = words(`
  Array ReadonlyArray Map ReadonlyMap Set ReadonlySet WeakMap WeakSet Promise Record Partial Required Readonly
  Pick Omit Date RegExp Error TypeError RangeError Uint8Array ArrayBuffer Generator AsyncGenerator
  IterableIterator MapIterator SetIterator ArrayIterator Iterable Iterator Symbol Function Object JSON Math
  String Number Boolean BigInt
`)

/** The names a declaration file declares at its top level. */
function topLevelNames(file: TS.SourceFile): string[] {
  return file.statements.flatMap((s) =>
    (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s) || ts.isClassDeclaration(s) || ts.isEnumDeclaration(s)) && s.name
      ? [s.name.text]
      : [],
  )
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

/** codeact's own checks of tool calls (call-constraints.ts), as diagnostics that carry their verdict. */
function ownChecks(checked: Checked, toolNames: readonly string[], legend: Legend, from: number): Found[] {
  try {
    return checkToolCalls(checked.file, checked.checker, toolNames, legend, from).map((f: Finding) => ({
      file: checked.file,
      start: f.start,
      length: f.length,
      messageText: f.message,
      category: ts.DiagnosticCategory.Error,
      code: CODEACT_CODES[f.verdict.rule as keyof typeof CODEACT_CODES],
      verdict: f.verdict,
    }))
  } catch {
    // The check's own failure must not stop a program that may be fine.
    return []
  }
}

/** A TypeScript diagnostic, or one of codeact's own with its verdict already given. */
type Found = TS.Diagnostic & { verdict?: Verdict }

interface Checked {
  file: TS.SourceFile
  diagnostics: readonly TS.Diagnostic[]
  checker: TS.TypeChecker
}

/**
 * `userSource`, when given, is the program as the user wrote it; `file` holds it wrapped one line down, and
 * `checker` classifies each diagnostic (without one, everything is an error: the SDK's own check).
 */
function toDiagnostics(
  raw: readonly Found[],
  file: TS.SourceFile,
  toolNames: readonly string[],
  userSource?: string,
  checker?: TS.TypeChecker,
  prefixLines = 0,
): TypeDiagnostic[] {
  const lines = (userSource ?? file.text).split(/\r?\n/)
  const shift = userSource === undefined ? 0 : WRAP_LINE_OFFSET + prefixLines
  const seen = new Set<string>()
  const out: TypeDiagnostic[] = []
  for (const d of [...raw].sort((a, b) => (a.start ?? 0) - (b.start ?? 0))) {
    let verdict: Verdict = d.verdict ?? { kind: 'block', rule: 'always' }
    if (checker !== undefined && d.verdict === undefined) {
      try {
        verdict = classify(d, { checker, file, toolNames })
      } catch {
        // The rule's own failure must not stop a program that may be fine: say it, do not block.
        verdict = { kind: 'note', rule: 'other', cause: `${d.code}`, message: ts.flattenDiagnosticMessageText(d.messageText, '\n') }
      }
    }
    if (verdict.kind === 'drop') continue
    const original = ts.flattenDiagnosticMessageText(d.messageText, '\n')
    const message = verdict.kind === 'note' ? verdict.message : (verdict.message ?? blockingMessage(d, original, file, toolNames))
    // A missing closer is reported where the program ends; the line of its opener is the one to fix.
    const at =
      d.code === 1005 && d.relatedInformation?.[0]?.start !== undefined && /^'[})\]]' expected/.test(original)
        ? d.relatedInformation[0].start
        : (d.start ?? 0)
    const pos = ts.getLineAndCharacterOfPosition(file, Math.min(at, file.text.length))
    const key = `${pos.line}:${pos.character}:${d.code}:${message}`
    if (seen.has(key)) continue
    seen.add(key)
    const line = Math.min(Math.max(pos.line - shift, 0), lines.length - 1)
    const column = line === pos.line - shift ? pos.character + 1 : 1
    out.push({
      line: line + 1,
      column,
      code: d.code,
      message,
      lineText: lines[line] ?? '',
      severity: verdict.kind === 'note' ? 'note' : 'error',
      rule: verdict.rule,
      ...(verdict.kind === 'note' ? { cause: verdict.cause } : {}),
    })
  }
  return out
}

/** The message of a blocking diagnostic: TypeScript's, or one line that names the fix. */
function blockingMessage(d: TS.Diagnostic, message: string, file: TS.SourceFile, toolNames: readonly string[]): string {
  const unknownTool =
    /^Property '([^']+)' does not exist on type 'Tools'/.exec(message) ??
    /^Element implicitly has an 'any' type because expression of type '"([^"]+)"' can't be used to index type 'Tools'/.exec(message)
  if (unknownTool?.[1] !== undefined) return unknownToolHint(unknownTool[1], toolNames)
  if (/^(Type|Argument of type) 'Promise<|on type 'Promise<|'Promise<[^']*>' is always defined/.test(message))
    return `${message} Did you forget \`await\`?`
  const missing = /^Cannot find name '([^']+)'/.exec(message)?.[1]
  if (missing !== undefined) {
    if (toolNames.includes(missing)) return `Cannot find name '${missing}'. Call the tool as \`await ${toolRef(missing)}(args)\`.`
    const node = d.start === undefined ? undefined : nodeAt(file, d.start, d.length ?? 0)
    const member =
      node?.parent && ts.isPropertyAccessExpression(node.parent) && node.parent.expression === node ? node.parent.name.text : undefined
    return toolPrefixHint(missing, member, toolNames) ?? missingGlobalHint(missing, toolNames) ?? message
  }
  if (d.code === 1005 && /^'[})\]]' expected/.test(message) && d.relatedInformation?.[0]?.start !== undefined) {
    const closer = message.charAt(1)
    return `This '${opener(closer)}' is never closed: add the missing '${closer}' where its block ends.`
  }
  // The lib is fixed by the sandbox: "change your target library" is not advice a program can take.
  if (d.code === 2550)
    return `${message.replace(/ Do you need to change your target library\?.*$/s, '')} It is not among this sandbox's ${builtinsName()} built-ins.`
  if (d.code === 1308)
    return `${message} Make the callback \`async\`, or better, loop with \`for (const x of xs) { await … }\` or \`await Promise.all(xs.map(async (x) => …))\`.`
  return message
}
