/**
 * Live progress for a person at a terminal. On a TTY: console lines as they come and one status line
 * redrawn in place (calls per tool, failures, files changed, elapsed, the last console line). Elsewhere
 * (a pipe, a CI log): calm lines — console output, one line per failed call, a progress line every few
 * seconds. `--verbose` adds a line per tool call in both.
 *
 * Everything printed is shown through `visible` (the program's text cannot move the cursor or erase the
 * screen), and while a person is asked something (an approval, a review) the status line is cleared and the
 * program's lines are held, then printed after the answer: nothing the program prints can draw over the
 * question or forge one. What is held is bounded by the run's console output cap (`--max-output`).
 */
import type { Runtime } from '../runtime/create-runtime.js'
import type { EventData, JsonValue, RunEvent } from '../vocabulary/types.js'
import { visible } from '../vocabulary/visible-text.js'
import { count } from './count.js'

const CHANGING = new Set(['write_file', 'edit_file', 'remove', 'mkdir'])

export interface LiveOptions {
  /** Redraw a status line in place (stderr is a terminal). */
  tty: boolean
  /** A line per tool call. */
  verbose?: boolean
  /** Terminal width, for cutting the status line. */
  columns?: number
  /** Non-TTY progress line interval. */
  progressEveryMs?: number
  /** Status line redraw interval. */
  redrawEveryMs?: number
  /** The program is type-checked before its first call: the status line says so until then. */
  checking?: boolean
}

function pathArg(args: JsonValue): string | undefined {
  return typeof args === 'object' && args !== null && !Array.isArray(args) && typeof args.path === 'string' ? args.path : undefined
}

/** Counts kept from the event stream. */
export class LiveStats {
  readonly started = Date.now()
  calls = 0
  failed = 0
  readonly perTool = new Map<string, number>()
  readonly changed = new Set<string>()
  commands = 0
  lastConsole = ''
  /** A call or a console line has come: the program is past its check and running. */
  running = false
  private readonly args = new Map<string, { name: string; path?: string }>()

  take(e: RunEvent): void {
    if (e.type === 'tool/call' || e.type === 'console') this.running = true
    if (e.type === 'tool/call') {
      const d = e.data as EventData['tool/call']
      this.calls++
      this.perTool.set(d.name, (this.perTool.get(d.name) ?? 0) + 1)
      const path = pathArg(d.args)
      this.args.set(d.id, path === undefined ? { name: d.name } : { name: d.name, path })
    } else if (e.type === 'tool/result') {
      const d = e.data as EventData['tool/result']
      const call = this.args.get(d.id)
      this.args.delete(d.id)
      if (!d.result.ok) this.failed++
      else if (call && CHANGING.has(call.name) && call.path !== undefined) this.changed.add(call.path)
      else if (call?.name === 'bash') this.commands++
    } else if (e.type === 'console') {
      const d = e.data as EventData['console']
      this.lastConsole = d.text.split('\n').pop() ?? ''
    }
  }

  elapsed(): string {
    const s = (Date.now() - this.started) / 1000
    return s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`
  }

  tools(max = 4): string {
    const top = [...this.perTool].sort((a, b) => b[1] - a[1])
    const shown = top.slice(0, max).map(([n, c]) => `${visible(n)} ${count(c)}`)
    if (top.length > max) shown.push('…')
    return shown.join(', ')
  }

  line(checking = false): string {
    if (!this.running) return `${this.elapsed()} · ${checking ? 'type-checking…' : 'starting…'}`
    const parts = [this.elapsed(), `${count(this.calls)} call${this.calls === 1 ? '' : 's'}${this.calls ? ` (${this.tools()})` : ''}`]
    if (this.failed) parts.push(`${this.failed} failed`)
    if (this.changed.size || this.commands)
      parts.push(`${count(this.changed.size)} files written${this.commands ? ` + ${this.commands} bash` : ''}`)
    if (this.lastConsole) parts.push(`“${visible(this.lastConsole)}”`)
    return parts.join(' · ')
  }
}

export function formatLive(event: RunEvent, verbose = true): string | undefined {
  switch (event.type) {
    case 'console': {
      const d = event.data as EventData['console']
      return `${d.level === 'log' || d.level === 'info' ? '' : d.level + ': '}${visible(d.text, { multiline: true })}`
    }
    case 'tool/result': {
      const d = event.data as EventData['tool/result']
      if (d.result.ok && !verbose) return undefined
      const outcome = d.result.ok ? 'ok' : `${visible(d.result.error.code)}: ${visible(d.result.error.message)}`
      return `  ↳ ${visible(d.name)} ${outcome} (${d.durationMs} ms)`
    }
    case 'denial': {
      const d = event.data as EventData['denial']
      return `  ↳ denied ${visible(d.code)}: ${visible(d.message)}`
    }
    default:
      return undefined
  }
}

export interface LiveWatch {
  stats: LiveStats
  /** A person is being asked: clears the status line and holds the program's lines until `release()`. */
  hold(): void
  release(): void
  /** Stops, clearing the status line and printing what was held. */
  stop(): void
}

/** Prints live events to `out` until stopped. */
export function watchLive(rt: Pick<Runtime, 'on'>, out: NodeJS.WritableStream, options: LiveOptions = { tty: false }): LiveWatch {
  const stats = new LiveStats()
  const width = Math.max(20, (options.columns ?? 100) - 1)
  let drawn = false
  let holds = 0
  const held: string[] = []
  const clear = (): void => {
    if (drawn) out.write('\r\x1b[K')
    drawn = false
  }
  const draw = (): void => {
    if (holds > 0) return
    const text = stats.line(options.checking === true)
    out.write(`\r\x1b[K${text.length > width ? text.slice(0, width - 1) + '…' : text}`)
    drawn = true
  }
  const print = (line: string): void => {
    if (holds > 0) return void held.push(line)
    if (options.tty) clear()
    out.write(line + '\n')
  }
  const hold = (): void => {
    if (holds++ === 0 && options.tty) clear()
  }
  const release = (): void => {
    if (holds === 0 || --holds > 0) return
    for (const line of held.splice(0)) print(line)
  }
  const unsubscribe = rt.on('event', (e) => {
    stats.take(e)
    if (e.type === 'approval/request') hold()
    const line = formatLive(e, options.verbose === true)
    if (line !== undefined) print(line)
    if (e.type === 'approval/answer') release()
  })
  // Redrawn on every tick, events or not: the elapsed time moves while the program is checked or waits.
  const timer = options.tty
    ? setInterval(draw, options.redrawEveryMs ?? 100)
    : setInterval(() => holds === 0 && out.write(`  … ${stats.line(options.checking === true)}\n`), options.progressEveryMs ?? 5000)
  timer.unref()
  if (options.tty) draw()
  return {
    stats,
    hold,
    release,
    stop: () => {
      unsubscribe()
      clearInterval(timer)
      if (options.tty) clear()
      holds = Math.min(holds, 1)
      release()
    },
  }
}
