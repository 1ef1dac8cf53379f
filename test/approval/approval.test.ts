/**
 * Approval as a hook decision, through a real isolate: the wait is not the program's time, a no and an
 * expired question are EACCES, "always" sticks, questions are asked in issue order (Promise.all cannot
 * race a stateful guard), the native path and replay.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { approvalText } from '../../runtime/approval-text.js'
import { parseJSONL } from '../../runtime/event-log.js'
import { replayObservations } from '../../runtime/replay.js'
import type { AnyToolDefinition, ApprovalRequest, RunEvent } from '../../vocabulary/types.js'
import { testRuntime, unmatchedCalls } from '../support/runtime.js'

const removed: string[] = []
const tools: AnyToolDefinition[] = [
  {
    name: 'remove',
    description: 'Delete a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    execute: ({ path }: { path: string }) => {
      removed.push(path)
      return { removed: path }
    },
  },
  {
    name: 'list',
    description: 'List files.',
    parameters: { type: 'object', properties: {} },
    execute: () => ['a.txt', 'b.txt', 'c.txt'],
  },
]

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const types = (events: readonly RunEvent[]) => events.map((e) => e.type)

describe('approval', () => {
  it('a question answered long after the program time ran out still lets the run succeed', async () => {
    const rt = await testRuntime({ tools, approve: ['remove'], limits: { timeoutMs: 300 } })
    // The embedder answers through the runtime, 1.5 s later: five times the program's whole budget.
    const off = rt.on('event', (e) => {
      if (e.type === 'approval/request') setTimeout(() => rt.approve((e.data as { callId: string }).callId), 1500)
    })
    const result = await rt.runCode(`const r = await tools.remove({ path: 'old.log' }); return r`)
    off()
    expect(result.error).toBeNull()
    expect(result.value).toEqual({ removed: 'old.log' })
    expect(result.observation).toContain('Approvals (1):\n- remove (')
    expect(result.observation).toContain('asked "Allow remove({"path":"old.log"})?" → approved')
    const asked = types(result.events).filter((t) => t.startsWith('approval/'))
    expect(asked).toEqual(['approval/request', 'approval/answer'])
  })

  it('a denial is EACCES "not approved: …" with the reason; the tool never runs', async () => {
    const rt = await testRuntime({ tools, approve: ['remove'], onApproval: () => ({ approve: false, reason: 'keep the logs' }) })
    const before = removed.length
    const result = await rt.runCode(`
      try { await tools.remove({ path: 'keep.log' }) } catch (e) { if (e instanceof ToolCallError) console.log(e.code, e.message) }
      return 'done'`)
    expect(result.ok).toBe(true)
    expect(removed.length).toBe(before)
    expect(result.logs[0]!.text).toBe('EACCES not approved: keep the logs')
    expect(result.observation).toContain('→ denied: keep the logs')
    expect(result.observation).toContain('Denied (1):\n- remove({"path":"keep.log"}) → EACCES: not approved: keep the logs')
  })

  it('a question nobody answers expires as a denial after approvalTimeoutMs', async () => {
    const rt = await testRuntime({ tools, approve: ['remove'], approvalTimeoutMs: 400, limits: { timeoutMs: 200 } })
    const result = await rt.runCode(`return await tools.remove({ path: 'x' }).catch((e) => e.code + ': ' + e.message)`)
    expect(result.error).toBeNull()
    expect(result.value).toBe('EACCES: not approved: no answer within 400 ms (approvalTimeoutMs)')
    const answer = result.events.find((e) => e.type === 'approval/answer')!.data
    expect(answer).toMatchObject({ approved: false, by: 'timeout' })
    expect(rt.pendingApprovals()).toEqual([])
  })

  it('a hook may ask with its own message and details; the handler sees them, and "always" sticks for the tool', async () => {
    const seen: ApprovalRequest[] = []
    const rt = await testRuntime({
      tools,
      onApproval: (request) => {
        seen.push(request)
        return { approve: true, always: true }
      },
    })
    rt.hooks.on('pre-execute', (call) =>
      call.name === 'remove' ? { ask: { message: `Delete ${(call.args as { path: string }).path}?`, risk: 'high' } } : undefined,
    )
    const result = await rt.runCode(`for (const path of ['1', '2', '3']) await tools.remove({ path }); return 'ok'`)
    expect(result.value).toBe('ok')
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ name: 'remove', message: 'Delete 1?', details: { risk: 'high' }, origin: 'code', args: { path: '1' } })
    const answers = result.events.filter((e) => e.type === 'approval/answer').map((e) => (e.data as { by: string }).by)
    expect(answers).toEqual(['handler', 'always', 'always'])
    expect(result.observation).toContain('→ approved (always for this tool)')
  })

  it('a predicate policy: true asks with the default text, a string is the question, false lets the call through', async () => {
    const asked: string[] = []
    const rt = await testRuntime({
      tools,
      approve: (call) =>
        call.name === 'remove'
          ? (call.args as { path: string }).path.endsWith('.env')
            ? 'Delete a secrets file?'
            : false
          : call.name === 'list',
      onApproval: (r) => {
        asked.push(r.message)
        return true
      },
    })
    const result = await rt.runCode(
      `await tools.list({}); await tools.remove({ path: 'a.txt' }); await tools.remove({ path: '.env' }); return 1`,
    )
    expect(result.value).toBe(1)
    expect(asked).toEqual(['Allow list({})?', 'Delete a secrets file?'])
  })

  it('what a front door shows a person: a question of its own is followed by the whole call, made visible', async () => {
    const shown: string[] = []
    const rt = await testRuntime({
      tools,
      approve: (call) => (call.name === 'remove' ? 'Delete a file?' : call.name === 'list'),
      onApproval: (r) => {
        shown.push(approvalText(r))
        return true
      },
    })
    await rt.runCode(`await tools.list({}); await tools.remove({ path: 'a.txt' + ' '.repeat(40) + '\\x1b[2K\\u202e.env' }); return 1`)
    expect(shown).toEqual(['Allow list({})?', 'Delete a file?\n  the call: remove({"path":"a.txt«40 spaces»\\u001b[2K\\u202e.env"})'])
  })

  it('under Promise.all, questions come one at a time in issue order and a stateful guard sees each answer first', async () => {
    const rt = await testRuntime({ tools, approve: ['remove'] })
    // The guard allows one removal per run: the second must be refused however the program races them.
    let allowed = 0
    rt.hooks.on('pre-execute', (call) => {
      if (call.name !== 'remove') return undefined
      return ++allowed > 1 ? { deny: { code: 'EPERM', message: 'one removal per run' } } : undefined
    })
    const maxPending: number[] = []
    const order: string[] = []
    const off = rt.on('event', (e) => {
      if (e.type !== 'approval/request') return
      const { callId } = e.data as { callId: string }
      order.push(callId)
      // Answer slowly; while one waits, no later question (and no later guard) may have run.
      setTimeout(() => {
        maxPending.push(rt.pendingApprovals().length)
        rt.approve(callId)
      }, 150)
    })
    const result = await rt.runCode(`
      const files = await tools.list({})
      const out = await Promise.allSettled(files.map((path) => tools.remove({ path })))
      return out.map((o) => o.status === 'fulfilled' ? 'removed' : o.reason.code)`)
    off()
    expect(result.value).toEqual(['removed', 'EPERM', 'EPERM'])
    expect(maxPending).toEqual([1, 1, 1])
    const runId = result.events[0]!.data as { runId: string }
    expect(order).toEqual([2, 3, 4].map((n) => `${runId.runId}.${n}`))
    // Each question is answered before the next is asked.
    const seq = result.events.filter((e) => e.type.startsWith('approval/')).map((e) => e.type.slice(9))
    expect(seq).toEqual(['request', 'answer', 'request', 'answer', 'request', 'answer'])
  })

  it('a question still open when the run is aborted ends as a denial, and every call has its result', async () => {
    const rt = await testRuntime({ tools, approve: ['remove'] })
    const controller = new AbortController()
    const off = rt.on('event', (e) => {
      if (e.type === 'approval/request') setTimeout(() => controller.abort(), 100)
    })
    const result = await rt.runCode(`await tools.remove({ path: 'z' })`, { signal: controller.signal })
    off()
    expect(result.error?.kind).toBe('aborted')
    expect(unmatchedCalls(result.events)).toEqual([])
    expect(result.events.find((e) => e.type === 'approval/answer')!.data).toMatchObject({ approved: false, by: 'cancelled' })
    expect(rt.pendingApprovals()).toEqual([])
  })

  it('the native path asks the embedder too (per batch, or through approve/deny)', async () => {
    const rt = await testRuntime({ tools, approve: ['remove'] })
    const [a] = await rt.executeToolCalls([{ type: 'tool_use', id: 'toolu_1', name: 'remove', input: { path: 'n1' } }], {
      onApproval: (r) => ({ approve: false, reason: `not ${(r.args as { path: string }).path}` }),
    })
    expect(a).toMatchObject({ tool_use_id: 'toolu_1', is_error: true })
    expect(JSON.stringify(a)).toContain('not approved: not n1')
    const off = rt.on('event', (e) => {
      if (e.type === 'approval/request') setTimeout(() => rt.deny((e.data as { callId: string }).callId, 'nope'), 50)
    })
    const [b] = await rt.executeToolCalls([{ id: 'call_1', type: 'function', function: { name: 'remove', arguments: '{"path":"n2"}' } }])
    off()
    expect(b!.content).toContain('not approved: nope')
    // A run_code call's sub-calls are asked through the batch's handler.
    const [c] = await rt.executeToolCalls(
      [{ type: 'tool_use', id: 'toolu_2', name: 'run_code', input: { code: `return await tools.remove({ path: 'n3' })` } }],
      { onApproval: () => true },
    )
    expect((c as { content: string }).content).toContain('"removed":"n3"')
    expect((c as { content: string }).content).toContain('asked "Allow remove({"path":"n3"})?" → approved')
  })

  it('replay rebuilds an observation with approvals byte for byte', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'codeact-approval-')), 'log.jsonl')
    let n = 0
    const rt = await testRuntime({
      tools,
      approve: ['remove'],
      logFile: file,
      onApproval: () => (n++ % 2 === 0 ? true : { approve: false, reason: 'no more' }),
    })
    const result = await rt.runCode(`
      for (const path of ['r1', 'r2', 'r3']) await tools.remove({ path }).catch(() => {})
      return 'ok'`)
    expect(result.observation).toContain('Approvals (3):')
    await sleep(50)
    const replayed = replayObservations(parseJSONL(readFileSync(file, 'utf8'))).find(
      (o) => o.id === (result.events[0]!.data as { runId: string }).runId,
    )
    expect(replayed?.content).toBe(result.observation)
  })
})
