/** What a start-up recovery did with the workspace's stages, as lines for the terminal (stderr). */
import type { Runtime } from '../runtime/create-runtime.js'

export function recoveryLines(rt: Pick<Runtime, 'recovered'>, root: string | undefined): string[] {
  const out: string[] = []
  for (const r of rt.recovered) {
    if (r.action === 'finished')
      out.push(
        `codeact: an atomic apply into ${root} was interrupted (the host was killed); finished it from its journal: ${r.changes} change(s)`,
      )
    if (r.action === 'refused')
      out.push(
        `codeact: refused the staging journal in ${r.stage}: ${r.reason}; nothing of it was applied. If no run of yours was killed mid-apply, remove it: rm -r ${JSON.stringify(r.stage)}`,
      )
  }
  return out
}
