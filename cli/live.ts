/**
 * Live progress for a person at a terminal: console lines as they come, one line per tool call with its
 * duration and outcome, and a progress line every few seconds on a long run.
 */
import type { Runtime } from '../runtime/create-runtime.js'
import type { EventData, RunEvent } from '../vocabulary/types.js'

export function formatLive(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'console': {
      const d = event.data as EventData['console']
      return `${d.level === 'log' || d.level === 'info' ? '' : d.level + ': '}${d.text}`
    }
    case 'tool/result': {
      const d = event.data as EventData['tool/result']
      const outcome = d.result.ok ? 'ok' : `${d.result.error.code}: ${d.result.error.message}`
      return `  ↳ ${d.name} ${outcome} (${d.durationMs} ms)`
    }
    case 'denial': {
      const d = event.data as EventData['denial']
      return `  ↳ denied ${d.code}: ${d.message}`
    }
    default:
      return undefined
  }
}

/** Prints live events to `out` until the returned function is called. */
export function watchLive(rt: Pick<Runtime, 'on'>, out: NodeJS.WritableStream, progressEveryMs = 5000): () => void {
  const started = Date.now()
  let calls = 0
  const stop = rt.on('event', (e) => {
    if (e.type === 'tool/call') calls++
    const line = formatLive(e)
    if (line !== undefined) out.write(line + '\n')
  })
  const timer = setInterval(() => out.write(`  … running for ${Math.round((Date.now() - started) / 1000)} s, ${calls} tool call(s) so far\n`), progressEveryMs)
  timer.unref()
  return () => {
    stop()
    clearInterval(timer)
  }
}
