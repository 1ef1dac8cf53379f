/** Live progress for a person at a terminal: console lines as they come, one line per tool call. */
import type { EventData, RunEvent } from '../types.js'

export function printLive(event: RunEvent, out: NodeJS.WritableStream): void {
  switch (event.type) {
    case 'console': {
      const d = event.data as EventData['console']
      out.write(`${d.level === 'log' || d.level === 'info' ? '' : d.level + ': '}${d.text}\n`)
      break
    }
    case 'tool/result': {
      const d = event.data as EventData['tool/result']
      const outcome = d.result.ok ? 'ok' : `${d.result.error.code}: ${d.result.error.message}`
      out.write(`  ↳ ${d.name} ${outcome} (${d.durationMs} ms)\n`)
      break
    }
    case 'denial': {
      const d = event.data as EventData['denial']
      out.write(`  ↳ denied ${d.code}: ${d.message}\n`)
      break
    }
    default:
      break
  }
}
