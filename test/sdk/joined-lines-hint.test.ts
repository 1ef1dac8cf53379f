// joinedLinesHint on its own: when two lines are one statement to JavaScript (a line opening with `(`,
// `[` or a backtick after a line with no `;`), and the texts that only look like that.
import { describe, expect, it } from 'vitest'
import { joinedLinesHint } from '../../program/typecheck-hints.js'

describe('joinedLinesHint', () => {
  it('names the line to end with `;`, whichever of the two lines failed, across blank and comment lines', () => {
    const code = "const url = 'https://example.com/a' // where\n\n// then\n[url].length"
    expect(joinedLinesHint(code, [4])).toContain('line 4 starts with `[` and line 1 does not end with `;`')
    expect(joinedLinesHint('const a = f()\n(a)', [1])).toContain('end line 1 with `;`')
    expect(joinedLinesHint('const s = tag\n`x`', [2])).toContain('line 2 starts with a backtick')
  })

  it('says nothing where the lines are apart, or end a statement by themselves', () => {
    for (const code of [
      'const a = f();\n(a)',
      'if (x) {\n(a)',
      'const a = [\n[1]]',
      'return\n(a)',
      'foo(a,\n(b))',
      'const a = b +\n(c)',
      '(a)',
    ])
      expect(joinedLinesHint(code, [1, 2]), code).toBeUndefined()
    expect(joinedLinesHint('const a = f()\n(a)', [5])).toBeUndefined()
  })
})
