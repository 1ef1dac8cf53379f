/**
 * A session run's entropy is replayed by the guest, the same module in every backend: the same seed and
 * the recorded clock give the same Math.random, Date, and (where the realm has them: a container's Node)
 * Web Crypto and performance clock, so a session restored by replay rebuilds the same realm.
 */
import { afterAll, expect, it } from 'vitest'
import { eachBackend } from './backends.js'

const READ_ENTROPY = `
  const out = { random: [Math.random(), Math.random()], now: Date.now(), date: new Date().getTime(), str: typeof Date() }
  if (typeof crypto === 'object') {
    const bytes = new Uint8Array(8)
    crypto.getRandomValues(bytes)
    out.crypto = [crypto.randomUUID(), [...bytes]]
    out.perf = [performance.now() >= 0, performance.timeOrigin === out.now || performance.timeOrigin > 0]
  }
  return out`

eachBackend('guest entropy replay', (run, _backend, sandbox) => {
  const sessions: string[] = []
  let n = 0
  const session = (): { id: string; realm: 'new' } => {
    const id = `guest-entropy-${process.pid}-${++n}`
    sessions.push(id)
    return { id, realm: 'new' }
  }
  afterAll(async () => {
    for (const id of sessions) await sandbox().endSession?.(id)
  })

  it('the same seed and the recorded clock give the same values in a new realm; another seed does not', async () => {
    const first = await run(READ_ENTROPY, { session: session(), entropy: { seed: 'seed-1' } })
    expect(first.clock?.length).toBeGreaterThan(0)
    const replay = await run(READ_ENTROPY, { session: session(), entropy: { seed: 'seed-1', clock: first.clock } })
    expect(replay.value).toEqual(first.value)
    expect(replay.clock).toEqual(first.clock)
    const other = await run(READ_ENTROPY, { session: session(), entropy: { seed: 'seed-2', clock: first.clock } })
    const [a, b] = [first.value, other.value] as { random: number[]; crypto?: unknown[] }[]
    expect(b!.random).not.toEqual(a!.random)
    if (a!.crypto) expect(b!.crypto).not.toEqual(a!.crypto)
  })

  it("what the replay installs belongs to the program's realm: its functions' constructor is the program's Function", async () => {
    const { value } = await run(
      `const fns = [Math.random, Date.now, Date]
       if (typeof crypto === 'object') fns.push(crypto.getRandomValues, crypto.randomUUID, performance.now)
       return fns.map((f) => f.constructor === Function)`,
      { session: session(), entropy: { seed: 's' } },
    )
    expect(value).toEqual((value as boolean[]).map(() => true))
    expect((value as boolean[]).length).toBeGreaterThanOrEqual(3)
  })
})
