/** Minimal-mode runtimes over a fresh workspace folder, and a look at the host's processes. */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RuntimeOptions } from '../../runtime/create-runtime.js'
import { testRuntime } from '../support/runtime.js'

export function freshRoot(): string {
  return mkdtempSync(join(tmpdir(), 'codeact-minimal-'))
}

export async function minimalRuntime(options: Partial<RuntimeOptions> = {}, root = freshRoot()) {
  const rt = await testRuntime({ mode: 'minimal', workspace: { root }, ...options })
  return { rt, root }
}

/** Host pids whose command line mentions `text` (the workspace root is on every bwrap's). */
export function processesMentioning(text: string): number[] {
  const out: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(text)) out.push(Number(name))
    } catch {
      // gone
    }
  }
  return out
}

/** Polls until `check` holds (a process's death is not instant); false if it never did. */
export async function eventually(check: () => boolean, tries = 100): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (check()) return true
    await new Promise((r) => setTimeout(r, 50))
  }
  return check()
}
