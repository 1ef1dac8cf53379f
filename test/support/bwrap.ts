/**
 * Is bubblewrap usable here? The workspace's `bash` runs under it; suites that need a real bwrap skip,
 * with this reason printed, where it is missing (the test command names them; CI installs it and counts
 * any skip as a failure).
 */
import { spawnSync } from 'node:child_process'

function probe(): { available: boolean; reason?: string } {
  const r = spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-all', 'true'], { encoding: 'utf8', timeout: 10_000 })
  if (r.error)
    return {
      available: false,
      reason: `bwrap not found (${(r.error as NodeJS.ErrnoException).code ?? r.error.message}); apt-get install bubblewrap`,
    }
  if (r.status !== 0) return { available: false, reason: `bwrap cannot start here: ${r.stderr.trim().split('\n')[0]}` }
  return { available: true }
}

export const bwrap = probe()
if (!bwrap.available) console.warn(`[bwrap tests skipped] ${bwrap.reason}`)
