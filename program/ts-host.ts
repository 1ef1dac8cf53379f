/**
 * The TypeScript plumbing the type checker stands on: the compiler itself, the compiler options a program is
 * checked with, an in-memory compiler host, and the process-wide cache of parsed lib files.
 */
import { dirname } from 'node:path'
import type TS from 'typescript'
import { builtinLibs } from './builtins.js'
import { loadTypeScript } from './ts-load.js'

// Loaded as CommonJS with a V8 code cache (ts-load.ts), not imported: importing the 9 MB file from ESM makes
// Node scan it for named exports first, which costs a few hundred milliseconds of a fresh process's first check.
export const ts = loadTypeScript().ts

/**
 * The built-ins of this Node line (builtins.ts), no DOM and no Node (the sandbox has neither). Strict, without `catch (e) { e.code }` errors
 * (useUnknownInCatchVariables). `noImplicitAny` stays on although untyped helper parameters are fine: under
 * strictNullChecks it is what makes `const xs = []`, `let best = null` and `let x;` evolve with their
 * assignments (off, they are `never[]` and `null`); the blocking rule drops its 7xxx diagnostics.
 * Every file is a module, so top-level await is allowed.
 */
export const DEFAULT_OPTIONS: TS.CompilerOptions = {
  target: ts.ScriptTarget.ES2023,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  moduleDetection: ts.ModuleDetectionKind.Force,
  lib: builtinLibs(),
  types: [],
  strict: true,
  noImplicitAny: true,
  useUnknownInCatchVariables: false,
  allowUnreachableCode: true,
  allowUnusedLabels: true,
  skipLibCheck: true,
  noEmit: true,
  noResolve: true,
}

const LIB_DIR = dirname(ts.getDefaultLibFilePath({}))
const TARGET = ts.ScriptTarget.ES2023
/** Parsed lib files, shared by every checker in the process: they never change. */
const libCache = new Map<string, TS.SourceFile>()

/** Parses a file; `asModule` makes it a module whatever it contains (moduleDetection "force"). */
export function parseFile(fileName: string, text: string, asModule = false): TS.SourceFile {
  return ts.createSourceFile(
    fileName,
    text,
    {
      languageVersion: TARGET,
      setExternalModuleIndicator: asModule
        ? (f) => ((f as { externalModuleIndicator?: unknown }).externalModuleIndicator = true)
        : undefined,
      // Doc comments do not change types in .ts files; skipping them makes parsing the lib much cheaper.
      jsDocParsingMode: ts.JSDocParsingMode.ParseNone,
    },
    false,
  )
}

/**
 * Parses a program body (parents set) the way the async function it runs in reads it: as a module, so a
 * top-level `await` before a line break awaits the next line. Read as a script, TypeScript takes such an
 * `await` for an identifier and the next line for a statement of its own, which the last-expression rule
 * then broke (`const x = await` + newline + `tools.f()` became `… await` + `return await (tools.f())`).
 */
export function parseProgramBody(text: string): TS.SourceFile {
  const options: TS.CreateSourceFileOptions = {
    languageVersion: ts.ScriptTarget.ES2022,
    setExternalModuleIndicator: (f) => ((f as { externalModuleIndicator?: unknown }).externalModuleIndicator = true),
  }
  return ts.createSourceFile('program.ts', text, options, true, ts.ScriptKind.TS)
}

/** TypeScript's own syntax errors in a parse (internal, not in its public types, but there since TypeScript 1.x). */
export function parseErrorsOf(file: TS.SourceFile): readonly TS.DiagnosticWithLocation[] {
  return (file as unknown as { parseDiagnostics?: readonly TS.DiagnosticWithLocation[] }).parseDiagnostics ?? []
}

/** A `declare` statement: types only, nothing of it runs. */
export function isAmbient(s: TS.Statement): boolean {
  return ts.canHaveModifiers(s) && (ts.getModifiers(s) ?? []).some((m) => m.kind === ts.SyntaxKind.DeclareKeyword)
}

/** A host over in-memory files (the program, the SDK) and the cached lib; it never writes. */
export function createHost(files: () => readonly TS.SourceFile[]): TS.CompilerHost {
  const find = (name: string) => files().find((f) => f.fileName === name)
  return {
    getSourceFile: (name) => find(name) ?? libFile(name),
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

function libFile(fileName: string): TS.SourceFile | undefined {
  const cached = libCache.get(fileName)
  if (cached !== undefined) return cached
  const text = fileName.startsWith(LIB_DIR) ? ts.sys.readFile(fileName) : undefined
  if (text === undefined) return undefined
  const file = parseFile(fileName, text)
  libCache.set(fileName, file)
  return file
}
