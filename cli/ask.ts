/**
 * `--ask TOOL`: the CLI asks on its terminal before each such call — y (yes), n (no), a (always for this
 * tool). Without a terminal on stdin nobody can answer, so the call is refused at once with a message that
 * says why (rather than waiting out the approval timeout).
 */
import { createInterface } from 'node:readline'
import { approvalText, callDigest } from '../runtime/approval-text.js'
import { visible } from '../vocabulary/visible-text.js'
import type { ApprovalAnswer, ApprovalHandler, ApprovalRequest } from '../vocabulary/types.js'

/** Past this many characters the question shows the call's two ends, its digest, and [v] to see it whole. */
const MAX_SHOWN = 2000
const HEAD = 1200
const TAIL = 400

interface TerminalStreams {
  input: NodeJS.ReadableStream & { isTTY?: boolean }
  output: NodeJS.WritableStream
}

const NO_TTY_REASON =
  'codeact asks before this tool runs (--ask) and stdin is not a terminal, so nobody could answer; run it from a terminal, or drop --ask for this tool'

export function askOnTerminal(streams: TerminalStreams = { input: process.stdin, output: process.stderr }): ApprovalHandler {
  return (request, signal) => {
    if (!streams.input.isTTY) return { approve: false, reason: NO_TTY_REASON }
    return prompt(streams, request, signal)
  }
}

function prompt({ input, output }: TerminalStreams, request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
  return new Promise((resolve) => {
    const rl = createInterface({ input, output, terminal: true })
    let answered = false
    const done = (answer: ApprovalAnswer) => {
      if (answered) return
      answered = true
      signal.removeEventListener('abort', onAbort)
      resolve(answer) // before close(), whose event would otherwise answer first
      rl.close()
    }
    const onAbort = () => {
      output.write('\n')
      done({ approve: false, reason: 'the question was withdrawn' })
    }
    signal.addEventListener('abort', onAbort, { once: true })
    const whole = approvalText(request)
    const long = whole.length > MAX_SHOWN
    const shown = long
      ? `${whole.slice(0, HEAD)}\n  …[${whole.length - HEAD - TAIL} characters not shown: [v]iew shows the whole call, digest ${callDigest(request)}]…\n${whole.slice(-TAIL)}`
      : whole
    let text = shown
    const ask = () =>
      rl.question(
        `\ncodeact: ${text}\n  [y]es  [n]o  [a]lways for ${visible(request.name)}${long ? '  [v]iew the whole call' : ''} › `,
        (line) => {
          const word = line.trim().toLowerCase()
          if (word === 'y' || word === 'yes') return done(true)
          if (word === 'a' || word === 'always') return done({ approve: true, always: true })
          if (word === 'n' || word === 'no') return done({ approve: false, reason: 'the user said no' })
          text = long && (word === 'v' || word === 'view') ? `${whole}\n  (the whole call, digest ${callDigest(request)})` : shown
          ask()
        },
      )
    // Ctrl-D or a closed terminal is a no.
    rl.on('close', () => done({ approve: false, reason: 'the user did not answer' }))
    ask()
  })
}
