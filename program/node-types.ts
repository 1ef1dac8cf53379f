/**
 * Node's type declarations (@types/node) as ambient files for the type check, where the program runs with
 * Node's APIs (the Docker backend): `require`, `process`, `Buffer`, and `import('node:fs')` then type-check
 * like in any Node project. Read once per process from the installed @types/node; when it is not installed,
 * a small stand-in declares the same names loosely (typed `any`), so a Node program is never blocked for
 * lack of a package.
 */
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { AmbientFile } from './typecheck.js'

/** Where the files appear to the checker (a virtual folder; diagnostics inside them are never reported). */
const VIRTUAL_DIR = '/codeact/node_modules/@types/node'

const FALLBACK = `declare var process: any;
declare var Buffer: any;
declare function require(id: string): any;
declare var module: any;
declare var __dirname: string;
declare var __filename: string;
declare module 'node:*' { const m: any; export = m; }
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
          files.push({ fileName: path.posix.join(VIRTUAL_DIR, child), text: fs.readFileSync(path.join(dir, child), 'utf8') })
        }
      }
    }
    try {
      walk('')
    } catch {
      files.length = 0
    }
  }
  cached = files.length > 0 ? files : [{ fileName: `${VIRTUAL_DIR}/index.d.ts`, text: FALLBACK }]
  return cached
}
