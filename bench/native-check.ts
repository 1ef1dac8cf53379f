/**
 * A floor for the type check, measured beside the runtime's own: the same program checked by TypeScript 7's
 * native checker (tsgo: Go, compiled ahead of time, its own process, through the package's synchronous API).
 * The runtime checks with TypeScript 6 in a thread, whose cost falls over the first thousands of checks as V8
 * compiles the checker; a native checker has no such warm-up, so it shows what a check costs when the
 * checker's own speed is taken out of the question. Same files (sandbox globals, the SDK, the program in the
 * very wrapper the runtime checks), the options of program/ts-host.ts's DEFAULT_OPTIONS.
 */
import { API, type Snapshot } from 'typescript-native/unstable/sync'
import { wrapProgram } from '../program/normalise.js'
import { DEFAULT_OPTIONS, ts } from '../program/ts-host.js'
import { SANDBOX_GLOBALS } from '../program/typecheck-hints.js'

const ROOT = '/codeact'
const CONFIG = `${ROOT}/tsconfig.json`
const PROGRAM = `${ROOT}/program.ts`

/**
 * DEFAULT_OPTIONS of program/ts-host.ts (what the runtime checks with), written as a tsconfig's compilerOptions:
 * enums by their names, lib files by their short names, so the two checkers cannot drift apart.
 */
function tsconfigOptions(): Record<string, unknown> {
  const enums: Record<string, Record<number, string>> = {
    target: ts.ScriptTarget,
    module: ts.ModuleKind,
    moduleResolution: ts.ModuleResolutionKind,
    moduleDetection: ts.ModuleDetectionKind,
  }
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(DEFAULT_OPTIONS)) {
    const names = enums[key]
    if (names !== undefined && typeof value === 'number') out[key] = names[value]?.toLowerCase()
    else if (key === 'lib' && Array.isArray(value)) out[key] = value.map((f) => String(f).replace(/^lib\.|\.d\.ts$/g, ''))
    else out[key] = value
  }
  return out
}

export interface NativeChecker {
  /** Checks a program body (as runCode receives it); answers the codes of its syntax and type diagnostics. */
  check(source: string): number[]
  close(): void
}

/** A native checker over these SDK declarations; its lib files come from the package, everything else from memory. */
export function nativeChecker(declarations: string): NativeChecker {
  const files = new Map<string, string>([
    [CONFIG, JSON.stringify({ compilerOptions: tsconfigOptions(), files: ['sandbox-globals.d.ts', 'sdk.d.ts', 'program.ts'] })],
    [`${ROOT}/sandbox-globals.d.ts`, SANDBOX_GLOBALS],
    [`${ROOT}/sdk.d.ts`, declarations],
    [PROGRAM, ''],
  ])
  // Under ROOT only the files above exist; elsewhere (the lib) the real file system answers (undefined).
  const mine = (f: string) => f === ROOT || f.startsWith(`${ROOT}/`)
  const api = new API({
    cwd: ROOT,
    fs: {
      readFile: (f) => files.get(f) ?? (mine(f) ? null : undefined),
      fileExists: (f) => files.has(f) || (mine(f) ? false : undefined),
      directoryExists: (d) => (d === ROOT || d === '/' ? true : mine(d) ? false : undefined),
    },
  })
  let snapshot: Snapshot | undefined
  return {
    check(source) {
      files.set(PROGRAM, wrapProgram(source).text)
      const next =
        snapshot === undefined ? api.updateSnapshot({ openProject: CONFIG }) : api.updateSnapshot({ fileChanges: { changed: [PROGRAM] } })
      snapshot?.dispose()
      snapshot = next
      const program = snapshot.getProject(CONFIG)?.program
      if (program === undefined) throw new Error('tsgo opened no project')
      return [...program.getSyntacticDiagnostics(PROGRAM), ...program.getSemanticDiagnostics(PROGRAM)].map((d) => d.code)
    },
    close() {
      snapshot?.dispose()
      api.close()
    },
  }
}
