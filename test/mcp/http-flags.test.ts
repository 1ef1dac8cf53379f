/** `codeact mcp`'s HTTP flags: parsed into serveHttp's options, and each misuse a usage error (exit 2). */
import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { httpOptions, mcpCommand } from '../../cli/mcp.js'

function stderr(): { stream: Writable; text: () => string } {
  let text = ''
  const stream = new Writable({ write: (chunk: Buffer, _enc, done) => ((text += chunk.toString()), done()) })
  return { stream, text: () => text }
}

describe('codeact mcp HTTP flags', () => {
  it('turns the flags (and CODEACT_MCP_TOKEN) into serveHttp options', () => {
    expect(
      httpOptions(
        { 'allow-origin': ['https://app.example:8443/'], 'max-sessions': '20', 'session-idle': '60000', 'max-body': '1048576' },
        8765,
        {},
      ),
    ).toEqual({
      ok: true,
      value: { port: 8765, allowedOrigins: ['https://app.example:8443'], maxSessions: 20, sessionIdleMs: 60000, maxBodyBytes: 1048576 },
    })
    expect(httpOptions({}, 0, { CODEACT_MCP_TOKEN: 'from-the-environment-1234' })).toEqual({
      ok: true,
      value: { port: 0, token: 'from-the-environment-1234' },
    })
    // The flag wins over the environment.
    expect(httpOptions({ token: 'from-the-command-line-12' }, 0, { CODEACT_MCP_TOKEN: 'from-the-environment-1234' })).toMatchObject({
      value: { token: 'from-the-command-line-12' },
    })
    // Over stdio the variable is ignored (no HTTP, no token to check).
    expect(httpOptions({}, undefined, { CODEACT_MCP_TOKEN: 'from-the-environment-1234' })).toEqual({ ok: true, value: { port: 0 } })
  })

  it('refuses misuse with a message that says what to fix', async () => {
    const cases: [string[], RegExp][] = [
      [['--token', 'abcdefghijklmnopqrstuvwxyz'], /--token applies to --http only/],
      [['--http', '0', '--token', 'short'], /at least 16 printable characters/],
      [['--http', '0', '--max-sessions', '0'], /--max-sessions needs a whole number of at least 1, got "0"/],
      [['--http', '0', '--session-idle', 'soon'], /--session-idle needs a whole number/],
      [['--http', '0', '--max-body', '12'], /--max-body needs a whole number of at least 1024/],
      [['--http', '0', '--allow-origin', 'evil.example'], /--allow-origin: Invalid URL/],
      [['--http', '0', '--allow-origin', 'file:///etc'], /must be http:\/\/ or https:\/\//],
    ]
    for (const [args, message] of cases) {
      const err = stderr()
      expect(await mcpCommand(args, { stderr: err.stream })).toBe(2)
      expect(err.text()).toMatch(message)
    }
  })
})
