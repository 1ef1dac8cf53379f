/**
 * Node's type declarations (@types/node) as ambient files for the type check, where the program runs with
 * Node's APIs (the Docker backend): `require`, `process`, `Buffer`, and `import('node:fs')` then type-check
 * like in any Node project. Read once per process from the installed @types/node; when it is not installed,
 * a small stand-in declares the same names loosely (typed `any`), so a Node program is never blocked for
 * lack of a package.
 *
 * Of the globals @types/node declares, only those the container's realm gives a program stay
 * (vocabulary/runner-globals.ts): `ReadableStream`, `WebSocket`, `__dirname` or Node's full `console` type-checked
 * and then failed at run time. Their types stay, so `import('node:stream/web')` still checks.
 */
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type TS from 'typescript'
import { RUNNER_NODE_GLOBALS } from '../vocabulary/runner-globals.js'
import { ts } from './ts-host.js'
import type { AmbientFile } from './typecheck.js'

/** Where the files appear to the checker (a virtual folder; diagnostics inside them are never reported). */
const VIRTUAL_DIR = '/codeact/node_modules/@types/node'

const FALLBACK = `declare var process: any;
declare var Buffer: any;
declare function require(id: string): any;
declare module 'node:*' { const m: any; export = m; }
`

/**
 * What a container's realm has beyond the checker's lib: `Atomics.waitAsync` (its lib, es2024.sharedmemory, is
 * left out for the isolate, whose lockdown removes it).
 */
const REALM_EXTRAS = `interface Atomics {
  waitAsync(typedArray: Int32Array | BigInt64Array, index: number, value: number | bigint, timeout?: number):
    | { async: false; value: 'not-equal' | 'timed-out' }
    | { async: true; value: Promise<'ok' | 'timed-out'> }
}
`

let cached: readonly AmbientFile[] | undefined

/** Every .d.ts file of @types/node (older-TypeScript copies left out), or the stand-in. */
export function nodeAmbientFiles(): readonly AmbientFile[] {
  if (cached) return cached
  let dir: string | undefined
  try {
    dir = path.dirname(createRequire(import.meta.url).resolve('@types/node/package.json'))
  } catch {
    dir = undefined
  }
  const files: AmbientFile[] = []
  if (dir) {
    const walk = (rel: string): void => {
      for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
        const child = path.posix.join(rel, entry.name)
        if (entry.isDirectory()) {
          if (!/^ts\d/.test(entry.name) && entry.name !== 'node_modules') walk(child)
        } else if (entry.name.endsWith('.d.ts')) {
          files.push({
            fileName: path.posix.join(VIRTUAL_DIR, child),
            text: realmGlobalsOnly(fs.readFileSync(path.join(dir, child), 'utf8')),
          })
        }
      }
    }
    try {
      walk('')
    } catch {
      files.length = 0
    }
  }
  if (files.length === 0) files.push({ fileName: `${VIRTUAL_DIR}/index.d.ts`, text: FALLBACK })
  files.push({ fileName: `${VIRTUAL_DIR}/codeact-realm.d.ts`, text: REALM_EXTRAS })
  cached = files
  return cached
}

/** Global values a container's program has from Node; the rest of @types/node's global values are cut. */
const KEPT = new Set([...RUNNER_NODE_GLOBALS, 'require', 'global'])

/** `text` without its global `var`/`function`/`class` declarations of names the realm does not give. */
function realmGlobalsOnly(text: string): string {
  const file = ts.createSourceFile('node.d.ts', text, ts.ScriptTarget.Latest, true)
  const cut: [number, number][] = []
  const visit = (statements: readonly TS.Statement[], global: boolean): void => {
    for (const s of statements) {
      if (ts.isModuleDeclaration(s)) {
        const inner = s.body && ts.isModuleBlock(s.body) ? s.body.statements : []
        visit(inner, ts.isIdentifier(s.name) && s.name.text === 'global')
      } else if (global && !KEPT.has(declaredName(s) ?? '')) {
        if (declaredName(s) !== undefined) cut.push([s.getFullStart(), s.end])
      }
    }
  }
  // A file with imports or exports is a module: only its `declare global` blocks declare globals.
  const isScript = !file.statements.some((s) => ts.isImportDeclaration(s) || ts.isExportDeclaration(s) || ts.isExportAssignment(s))
  visit(file.statements, isScript)
  let out = text
  for (const [from, to] of cut.reverse()) out = out.slice(0, from) + out.slice(to)
  return out
}

/** The value a statement declares in the global scope (a `var`, `function` or `class`); types are kept. */
function declaredName(s: TS.Statement): string | undefined {
  if (ts.isVariableStatement(s)) {
    const [first] = s.declarationList.declarations
    return first && ts.isIdentifier(first.name) ? first.name.text : undefined
  }
  if ((ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) && s.name) return s.name.text
  return undefined
}
