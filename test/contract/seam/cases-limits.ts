/** The seam's promises about ending a run: abort, the two budgets, memory, output and close. */
import { answer, failedWith, type SeamCase, same, parsedValue } from './context.js'
import { never, recordingHost, request } from './programs.js'

/** Runs `body`, aborting once the host has seen `calls` calls (0: at once after it started). */
async function abortedRun(ctx: Parameters<SeamCase['check']>[0], body: string, calls: number): Promise<string[]> {
  const host = recordingHost()
  const controller = new AbortController()
  const running = answer(ctx.sandbox, await request(body, { limits: { timeoutMs: 60_000, deadlineMs: 120_000 } }), host, controller.signal)
  if (calls > 0) await Promise.race([host.called(calls), running])
  else await new Promise((r) => setTimeout(r, 500))
  controller.abort()
  const got = await running
  return got.problem !== undefined ? [got.problem] : failedWith(got.outcome, 'aborted')
}

export const limitCases: SeamCase[] = [
  {
    name: 'abort ends a run waiting on the host as aborted',
    async check(ctx) {
      const problems = await abortedRun(ctx, 'await Promise.all([tools.slow({ ms: 600000 }), tools.slow({ ms: 600000 })])', 2)
      const host = recordingHost()
      const early = new AbortController()
      early.abort()
      const got = await answer(ctx.sandbox, await request('await tools.add({ a: 1, b: 1 })'), host, early.signal)
      problems.push(...(got.problem !== undefined ? [got.problem] : failedWith(got.outcome, 'aborted').map((p) => `already aborted: ${p}`)))
      return [...problems, ...same('calls of a run aborted before it started', host.calls.length, 0)]
    },
  },
  {
    name: 'abort ends a busy program as aborted',
    check: (ctx) => abortedRun(ctx, 'await tools.echo({})\nwhile (true) {}', 1),
  },
  {
    name: "the program's own time ends it as timeout (budget: program)",
    async check(ctx) {
      const got = await answer(ctx.sandbox, await request('while (true) {}', { limits: { timeoutMs: 500 } }), recordingHost(), never())
      return got.problem !== undefined ? [got.problem] : failedWith(got.outcome, 'timeout', 'program')
    },
  },
  {
    name: 'time waiting on the host is not program time',
    async check(ctx) {
      const body = 'return await tools.slow({ id: "waited", ms: 1500 })'
      const got = await answer(ctx.sandbox, await request(body, { limits: { timeoutMs: 750 } }), recordingHost(), never())
      if (got.problem !== undefined) return [got.problem]
      const { value, problems } = parsedValue(got.outcome)
      return [...problems, ...same('value', value, 'waited')]
    },
  },
  {
    name: "the run's deadline ends it as timeout (budget: deadline)",
    async check(ctx) {
      const req = await request('await tools.slow({ ms: 600000 })', { limits: { timeoutMs: 30_000, deadlineMs: 1500 } })
      const got = await answer(ctx.sandbox, req, recordingHost(), never())
      return got.problem !== undefined ? [got.problem] : failedWith(got.outcome, 'timeout', 'deadline')
    },
  },
  {
    name: 'memory past the limit ends a run as memory, and the next run runs',
    async check(ctx) {
      // Program time past anything the bomb needs: only the memory limit may be what stops it.
      const bomb = 'const a: string[] = []; while (true) a.push("x".repeat(1024) + a.length)'
      const got = await answer(
        ctx.sandbox,
        await request(bomb, { limits: { memoryMb: 64, timeoutMs: 60_000, deadlineMs: 120_000 } }),
        recordingHost(),
        never(),
      )
      if (got.problem !== undefined) return [got.problem]
      const next = await answer(ctx.sandbox, await request('return "next"'), recordingHost(), never())
      const after = next.problem !== undefined ? [next.problem] : same('the next run', parsedValue(next.outcome).value, 'next')
      return [...failedWith(got.outcome, 'memory'), ...after]
    },
  },
  {
    name: 'output past maxOutputBytes is dropped, counted in droppedOutputBytes and marked once',
    async check(ctx) {
      const host = recordingHost()
      const cap = 2000
      const body = 'for (let i = 0; i < 3000; i++) console.log("line", i)\nreturn "done"'
      const got = await answer(ctx.sandbox, await request(body, { limits: { maxOutputBytes: cap } }), host, never())
      if (got.problem !== undefined) return [got.problem]
      const { value, problems } = parsedValue(got.outcome)
      problems.push(...same('value', value, 'done'))
      // The lines kept are the first ones, in order, and one line of the backend's own says it cut the rest.
      const kept = host.logs.filter((l) => /^line \d+$/.test(l.text)).map((l) => l.text)
      const bytes = (lines: string[]) => lines.reduce((n, text) => n + Buffer.byteLength(text) + 1, 0)
      const written = Array.from({ length: 3000 }, (_, i) => `line ${i}`)
      problems.push(...same('lines kept', kept, written.slice(0, kept.length)))
      const marks = host.logs.filter((l) => !/^line \d+$/.test(l.text))
      problems.push(
        ...same(
          'the one line saying the output was cut',
          marks.map((l) => [l.level, /output cut/.test(l.text)]),
          [['warn', true]],
        ),
      )
      if (bytes(kept) > cap) problems.push(`kept ${bytes(kept)} bytes of console output, past the cap of ${cap}`)
      problems.push(...same('bytes kept + droppedOutputBytes', bytes(kept) + got.outcome.droppedOutputBytes, bytes(written)))
      return problems
    },
  },
  {
    name: 'close ends a run in flight as aborted',
    async check(ctx) {
      const sandbox = ctx.make()
      await sandbox.start()
      const host = recordingHost()
      const running = answer(sandbox, await request('await tools.slow({ ms: 600000 })'), host, never())
      await Promise.race([host.called(1), running])
      await sandbox.close()
      const got = await running
      return got.problem !== undefined ? [got.problem] : failedWith(got.outcome, 'aborted')
    },
  },
]
