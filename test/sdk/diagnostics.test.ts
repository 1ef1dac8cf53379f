import { describe, expect, it } from 'vitest'
import { formatTypeDiagnostics } from '../../program/diagnostics.js'
import type { TypeDiagnostic } from '../../program/typecheck.js'

const diag = (line: number, column: number, message: string, lineText: string): TypeDiagnostic => ({
  line,
  column,
  code: 2322,
  message,
  lineText,
  severity: 'error',
})

describe('formatTypeDiagnostics', () => {
  it('shows line:col, the message, the line and a caret under the column', () => {
    const text = formatTypeDiagnostics([diag(3, 7, "Type 'number' is not assignable to type 'string'.", 'const s: string = 1')])
    expect(text).toBe(["3:7 Type 'number' is not assignable to type 'string'. (TS2322)", '  const s: string = 1', '        ^'].join('\n'))
  })

  it('shows the first few and counts the rest', () => {
    const many = Array.from({ length: 8 }, (_, i) => diag(i + 1, 1, `problem ${i + 1}`, 'x'))
    const text = formatTypeDiagnostics(many, 3)
    expect(text.match(/^\d+:\d+ /gm)).toEqual(['1:1 ', '2:1 ', '3:1 '])
    expect(text.endsWith('…and 5 more')).toBe(true)
    expect(formatTypeDiagnostics(many).endsWith('…and 3 more')).toBe(true)
  })

  it('indents the lines of a multi-line message and omits an empty source line', () => {
    const text = formatTypeDiagnostics([diag(1, 1, 'Outer.\n  Inner.', '   ')])
    expect(text).toBe('1:1 Outer.\n    Inner. (TS2322)')
  })

  it('cuts a long line around the column, keeping the caret on it', () => {
    const line = `${'a'.repeat(300)}BAD${'b'.repeat(300)}`
    const text = formatTypeDiagnostics([diag(1, 301, 'here', line)])
    const [, shown, caret] = text.split('\n')
    expect(shown?.length).toBeLessThanOrEqual(2 + 1 + 160)
    expect(shown?.slice(caret?.indexOf('^'), (caret?.indexOf('^') ?? 0) + 3)).toBe('BAD')
  })

  it('says nothing for no diagnostics', () => {
    expect(formatTypeDiagnostics([])).toBe('')
  })
})
