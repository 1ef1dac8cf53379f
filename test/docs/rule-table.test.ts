/**
 * The blocking rule's table in docs/type-checking.md is the code's rule list (program/rule-table.ts), row for
 * row: a verdict the code gives is one the docs show, and a row the docs show is one the code has.
 */
import { describe, expect, it } from 'vitest'
import { RULES } from '../../program/rule-table.js'
import { read } from './markdown.js'

/** The rows of the table whose header is `| rule | diagnostics | verdict | why |`. */
function documentedRows(): { id: string; diagnostics: string; verdict: string; why: string }[] {
  const lines = read('docs/type-checking.md').split('\n')
  const head = lines.findIndex((l) => /^\| rule \| diagnostics \| verdict \| why \|$/.test(l))
  expect(head, 'the rule table in docs/type-checking.md').toBeGreaterThan(0)
  const rows: { id: string; diagnostics: string; verdict: string; why: string }[] = []
  for (const line of lines.slice(head + 2)) {
    if (!line.startsWith('|')) break
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim().replace(/\\\|/g, '|'))
    const [id, diagnostics, verdict, why] = cells as [string, string, string, string]
    rows.push({ id: id.replace(/^`|`$/g, ''), diagnostics, verdict, why })
  }
  return rows
}

describe('the blocking rule, as documented', () => {
  it('the docs table and the rule list are equal, row for row', () => {
    expect(documentedRows()).toEqual(RULES.map(({ id, diagnostics, verdict, why }) => ({ id, diagnostics, verdict, why })))
  })

  it('names each rule once', () => {
    expect(new Set(RULES.map((r) => r.id)).size).toBe(RULES.length)
  })
})
