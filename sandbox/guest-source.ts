/**
 * The guest's scripts (guest/, bundled by `npm run build` into dist/guest-bundle/ by
 * scripts/bundle-guest.mjs), read once each. Built, this file sits in dist/sandbox/ beside them; when the
 * TypeScript sources run directly (vitest) they are the build's copies under `<repo>/dist`.
 */
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** lockdown, prelude and isolate-bridge run in an isolate's fresh context, in that order; container in a container's realm. */
export type GuestScript = 'lockdown' | 'prelude' | 'isolate-bridge' | 'container'

const cache = new Map<GuestScript, string>()

function bundlePath(name: GuestScript): string | undefined {
  for (const rel of [`../guest-bundle/${name}.js`, `../dist/guest-bundle/${name}.js`]) {
    const file = fileURLToPath(new URL(rel, import.meta.url))
    if (existsSync(file)) return file
  }
  return undefined
}

/** The script's text; throws when the guest is not built (a backend's start turns that into sandbox_unavailable). */
export function guestSource(name: GuestScript): string {
  const cached = cache.get(name)
  if (cached !== undefined) return cached
  const file = bundlePath(name)
  if (file === undefined) throw new Error(`the sandbox's guest script ${name}.js is not built (dist/guest-bundle/): run \`npm run build\``)
  const text = readFileSync(file, 'utf8')
  cache.set(name, text)
  return text
}
