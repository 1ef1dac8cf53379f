/**
 * A REPL history planted by a program (issue 34): with `--workspace ~` the history file
 * (~/.codeact_repl_history) is inside the workspace, and a person recalls an entry with Up and runs it with
 * Enter. A program writes an entry there (or rewrites the file codeact saved); the next REPL must not offer it.
 * Typed at through a real pseudo-terminal, as a person would.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { hasScript, startRepl, tempDir } from '../cli/repl-pty.js'

const PLANTED = "'PLANTED' + 'RAN'"

/** Up, Enter, then a marker input: what the person ran, on the screen. */
async function upEnter(history: string): Promise<string> {
  const r = startRepl([], { CODEACT_REPL_HISTORY: history })
  await r.waitFor('> ')
  r.type('\x1b[A\r')
  r.type("'after' + 1\r")
  const screen = await r.waitFor(/Return value:\nafter1\n/)
  r.type('\x04')
  expect(await r.exited).toBe(0)
  return screen
}

describe.runIf(hasScript)('a planted REPL history', () => {
  it('a history file codeact did not write is not offered to Up, and the REPL says why', async () => {
    const history = join(tempDir('codeact-planted-history-'), 'history')
    writeFileSync(history, `${PLANTED}\n`, { mode: 0o600 })
    const screen = await upEnter(history)
    expect(screen, 'the planted entry was recalled and run').not.toContain('PLANTEDRAN')
    expect(screen).toContain('was not written by codeact as it is now')
  })

  it('an entry appended to a history codeact saved is not offered either', async () => {
    const history = join(tempDir('codeact-planted-history-'), 'history')
    const first = startRepl([], { CODEACT_REPL_HISTORY: history })
    await first.waitFor('> ')
    first.type('1 + 1\r')
    await first.waitFor(/Return value:\n2\n/)
    first.type('\x04')
    expect(await first.exited).toBe(0)
    writeFileSync(history, `1 + 1\n${PLANTED}\n`)
    const screen = await upEnter(history)
    expect(screen, 'the planted entry was recalled and run').not.toContain('PLANTEDRAN')
  })
})
