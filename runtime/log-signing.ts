/**
 * Signed JSONL logs: each line is the event's JSON with a last field `"mac"`, an HMAC (the state folder's
 * key) over the previous line's MAC and this line's text. So a line changed, removed from the middle, moved,
 * or spliced in from another log breaks the chain at that line, and the check names it. What the chain
 * cannot tell: a log cut short at its end (a host killed mid-write looks the same), or one whole log of the
 * same user's put in the place of another.
 */
import { macOf, sameMac, stateDir, stateKey } from '../vocabulary/state-folder.js'
import type { RunEvent } from '../vocabulary/types.js'

const PURPOSE = 'codeact event log'
const MAC_TAIL = /,"mac":"([0-9a-f]{64})"\}$/

/** The line to write for `event` after a line whose MAC was `prev` ('' for the first), and its MAC. */
export function signedLine(key: Buffer, prev: string, event: RunEvent): { line: string; mac: string } {
  const body = JSON.stringify(event)
  const mac = macOf(key, PURPOSE, prev, body)
  return { line: `${body.slice(0, -1)},"mac":"${mac}"}`, mac }
}

export type LogCheck = { ok: true; events: RunEvent[] } | { ok: false; line: number; why: string }

/**
 * The events of a signed log when every line checks; else the first line that does not, and why. A last
 * line cut off mid-write (no newline, not JSON) is dropped, as a host killed while writing leaves one.
 */
export function verifyLog(text: string, key: Buffer): LogCheck {
  const lines = text.split('\n')
  const events: RunEvent[] = []
  let prev = ''
  for (const [i, raw] of lines.entries()) {
    if (raw === '') continue
    const torn = i === lines.length - 1
    const m = MAC_TAIL.exec(raw)
    const body = m ? `${raw.slice(0, m.index)}}` : raw
    let event: RunEvent & { mac?: unknown }
    try {
      event = JSON.parse(raw) as RunEvent & { mac?: unknown }
    } catch {
      if (torn) break
      return { ok: false, line: i + 1, why: 'it is not JSON' }
    }
    if (!m)
      return {
        ok: false,
        line: i + 1,
        why: 'it carries no MAC (the log was not written by codeact with your key, or by a codeact from before logs were signed)',
      }
    const mac = macOf(key, PURPOSE, prev, body)
    if (!sameMac(m[1]!, mac))
      return {
        ok: false,
        line: i + 1,
        why: "its MAC does not match: the line was changed, lines before it were removed or reordered, it comes from another log, or the log was signed with another user's key",
      }
    delete event.mac
    events.push(event)
    prev = mac
  }
  return { ok: true, events }
}

/**
 * `verifyLog` with this user's key (the state folder's, `stateDir` as createRuntime takes it): the events of
 * a log codeact wrote, or the line that fails and why (line 0: the key itself cannot be used).
 */
export function checkLog(text: string, options: { stateDir?: string } = {}): LogCheck {
  const key = stateKey(stateDir(options.stateDir))
  return key.ok ? verifyLog(text, key.value) : { ok: false, line: 0, why: key.message }
}
