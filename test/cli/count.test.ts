import { describe, expect, it } from 'vitest'
import { count } from '../../cli/count.js'

describe('count: how the CLI prints a number of calls or files', () => {
  it("groups digits exactly as toLocaleString('en-US') does", () => {
    const values = [0, 1, 9, 10, 999, 1000, 1001, 12_345, 999_999, 1_000_000, 1_234_567_890, -1, -1234, -1_000_000, 2 ** 53 - 1, 1.5, 1e21]
    for (const x of values) expect(count(x)).toBe(x.toLocaleString('en-US'))
  })
})
