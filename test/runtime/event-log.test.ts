import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseJSONL } from '../../runtime/event-log.js'
import { basicTools } from '../support/tools.js'
import { testRuntime, unmatchedCalls } from '../support/runtime.js'

describe('event log: bounded in memory, complete on disk, never short for a run in progress', () => {
  it('keeps memory bounded over many runs while the JSONL file keeps everything', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'codeact-log-')), 'log.jsonl')
    const rt = await testRuntime({ tools: basicTools, logRetention: 20, logFile: file })
    for (let i = 0; i < 30; i++) await rt.runCode(`return await tools.add({ a: ${i}, b: 1 })`)
    expect(rt.log.all().length).toBeLessThanOrEqual(40)
    expect(rt.log.length).toBe(30 * 4)
    const onDisk = parseJSONL(readFileSync(file, 'utf8'))
    expect(onDisk.map((e) => e.seq)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1))
    expect(unmatchedCalls(onDisk)).toEqual([])
  })

  it('gives a run its complete events even when it alone logs more than the retention', async () => {
    const rt = await testRuntime({ tools: basicTools, logRetention: 10 })
    const long = rt.runCode('const out = []; for (let i = 0; i < 30; i++) out.push(await tools.add({ a: i, b: 0 })); return out.length')
    // Short runs finishing meanwhile trim the log, but not below the long run's start.
    for (let i = 0; i < 5; i++) await rt.runCode('return 1')
    const r = await long
    expect(r.value).toBe(30)
    expect(r.calls).toHaveLength(30)
    expect(r.events.filter((e) => e.type === 'tool/result')).toHaveLength(30)
    expect(r.events[0]?.type).toBe('run/start')
  })
})
