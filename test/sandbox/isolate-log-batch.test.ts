/**
 * The child's second line of defence on console output: whatever the prelude let through, at most the
 * cap (plus room for the cut marker) is held for the IPC channel; the rest is counted as dropped.
 */
import { describe, expect, it } from 'vitest'
import { LogBatch } from '../../sandbox/isolate/log-batch.js'

describe('LogBatch', () => {
  it('holds lines until taken, then starts empty', () => {
    const batch = new LogBatch(1000)
    batch.push('log', 'a')
    batch.push('warn', 'b')
    expect(batch.take()).toEqual([
      { level: 'log', text: 'a' },
      { level: 'warn', text: 'b' },
    ])
    expect(batch.take()).toBeUndefined()
  })

  it('drops and counts what goes past the cap plus slack, even across takes', () => {
    const batch = new LogBatch(0)
    let kept = 0
    for (let i = 0; i < 100; i++) if (batch.push('log', 'x'.repeat(99))) kept++
    batch.take()
    expect(batch.push('log', 'x'.repeat(99))).toBe(false)
    expect(kept).toBe(40) // 4096 bytes of slack / 100 bytes a line
    expect(batch.droppedBytes).toBe(61 * 100)
  })

  it('refuses levels that are not console levels', () => {
    const batch = new LogBatch(1000)
    expect(batch.push('trace', 'x')).toBe(false)
    expect(batch.push('__proto__', 'x')).toBe(false)
    expect(batch.take()).toBeUndefined()
  })
})
