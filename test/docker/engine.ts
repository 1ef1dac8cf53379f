/**
 * Is a Docker engine reachable? Probed once per test process (dockerode ping, 3 s at most), so Docker
 * suites can be skipped, with the reason printed, on a machine without one (`describe.skipIf`).
 */
import Docker from 'dockerode'

async function probe(): Promise<{ available: boolean; reason?: string }> {
  try {
    const docker = new Docker()
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 3 s')), 3000).unref())
    await Promise.race([docker.ping(), timeout])
    return { available: true }
  } catch (e) {
    return { available: false, reason: `no Docker engine reachable (${e instanceof Error ? e.message.split('\n')[0] : String(e)})` }
  }
}

export const dockerEngine: { available: boolean; reason?: string } = await probe()
if (!dockerEngine.available) console.warn(`[docker tests skipped] ${dockerEngine.reason}`)
