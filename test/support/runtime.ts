/** Runtimes for tests: a real isolate sandbox, closed after each test file. */
import { afterAll } from 'vitest'
import { createRuntime, type Runtime, type RuntimeOptions } from '../../runtime/create-runtime.js'
import type { RunEvent } from '../../vocabulary/types.js'

const open: Runtime[] = []
afterAll(async () => {
  await Promise.all(open.splice(0).map((rt) => rt.close()))
})

/** A runtime closed when the file's tests end. Type-checking is off unless asked for (tested on its own). */
export async function testRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const rt = await createRuntime({ typecheck: 'off', ...options })
  open.push(rt)
  return rt
}

/** Invariant 1: every tool/call has exactly one tool/result. */
export function unmatchedCalls(events: readonly RunEvent[]): string[] {
  const results = new Map<string, number>()
  for (const e of events)
    if (e.type === 'tool/result') results.set((e.data as { id: string }).id, (results.get((e.data as { id: string }).id) ?? 0) + 1)
  return events
    .filter((e) => e.type === 'tool/call')
    .map((e) => (e.data as { id: string }).id)
    .filter((id) => results.get(id) !== 1)
}
