/**
 * Is a Docker engine reachable? Probed once per test process (dockerode ping, 3 s at most), so Docker
 * suites can be skipped, with the reason printed, on a machine without one (`describe.skipIf`).
 * Also: which OCI runtimes the suites run under — runc (the engine's default) and gVisor's `runsc` when the
 * engine has it configured (.ci/run configures it in CI, where a missing runsc fails the suite instead).
 */
import Docker from 'dockerode'

async function probe(): Promise<{ available: boolean; reason?: string; runtimes: string[] }> {
  try {
    const docker = new Docker()
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 3 s')), 3000).unref())
    await Promise.race([docker.ping(), timeout])
    const info = (await docker.info()) as { Runtimes?: Record<string, unknown> }
    return { available: true, runtimes: Object.keys(info.Runtimes ?? {}) }
  } catch (e) {
    return {
      available: false,
      reason: `no Docker engine reachable (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`,
      runtimes: [],
    }
  }
}

export const dockerEngine: { available: boolean; reason?: string; runtimes: string[] } = await probe()
if (!dockerEngine.available) console.warn(`[docker tests skipped] ${dockerEngine.reason}`)

/** The runtimes a parameterised Docker suite runs under (`CODEACT_DOCKER_RUNTIMES=runc` narrows it locally). */
export const RUNTIMES_UNDER_TEST: readonly string[] = (process.env['CODEACT_DOCKER_RUNTIMES'] ?? 'runc,runsc')
  .split(',')
  .map((r) => r.trim())
  .filter(Boolean)

export interface DockerRuntimeCase {
  /** `runc` or `runsc` (gVisor): the name the engine knows it by. */
  name: string
  /** Why it is skipped here, or undefined when it runs. */
  skip: string | undefined
  /** The Docker option selecting it (runc is the engine's default: no option). */
  option: { runtime?: string }
}

const inCI = process.env['CI'] === 'true' || process.env['CI'] === '1'

/** One case per runtime under test; in CI a configured-but-missing runtime is not skipped (it fails). */
export const dockerRuntimeCases: readonly DockerRuntimeCase[] = RUNTIMES_UNDER_TEST.map((name) => {
  const missing = !dockerEngine.available
    ? dockerEngine.reason
    : dockerEngine.runtimes.includes(name)
      ? undefined
      : `the engine has no "${name}" runtime`
  if (missing && !inCI) console.warn(`[docker ${name} tests skipped] ${missing}`)
  return { name, skip: inCI && dockerEngine.available ? undefined : missing, option: name === 'runc' ? {} : { runtime: name } }
})
