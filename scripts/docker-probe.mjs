// Is a Docker engine reachable (DOCKER_HOST or the default socket)? Answers within two seconds.
import Docker from 'dockerode'

export async function dockerProbe() {
  try {
    const docker = new Docker()
    await Promise.race([docker.ping(), new Promise((_, reject) => setTimeout(() => reject(new Error('no answer within 2 s')), 2000))])
    return { available: true }
  } catch (e) {
    return { available: false, reason: String(e instanceof Error ? e.message : e).split('\n')[0] }
  }
}
