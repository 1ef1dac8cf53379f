/**
 * Where the child entry lives. Built, it sits next to this file (`dist/sandbox/isolate/child.js`). When the
 * TypeScript sources run directly (vitest), it is the build's copy under `<repo>/dist`.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export type ChildEntry = { ok: true; path: string } | { ok: false; message: string }

export function resolveChildEntry(): ChildEntry {
  const beside = fileURLToPath(new URL('./child.js', import.meta.url))
  if (existsSync(beside)) return { ok: true, path: beside }
  const built = fileURLToPath(new URL('../../dist/sandbox/isolate/child.js', import.meta.url))
  if (existsSync(built)) return { ok: true, path: built }
  return {
    ok: false,
    message: `the isolate sandbox's child process is not built (looked for ${beside} and ${built}): run \`npm run build\``,
  }
}
