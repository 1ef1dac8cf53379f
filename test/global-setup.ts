/**
 * Once per test run: when the Docker suites will run (scripts/test.mjs sets CODEACT_DOCKER=1 after an
 * engine answered), make sure the runner image exists and matches the runner's sources, so no suite
 * depends on another one having built it first.
 */
export default async function setup(): Promise<void> {
  if (process.env['CODEACT_DOCKER'] !== '1') return
  const { ensureImage } = await import('./docker/helpers.js')
  await ensureImage()
}
