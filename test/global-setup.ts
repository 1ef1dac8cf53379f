/**
 * Once per test run: the shared checker off (below); when the Docker suites will run (scripts/test.mjs sets CODEACT_DOCKER=1 after an
 * engine answered), make sure the runner image exists and matches the runner's sources, so no suite
 * depends on another one having built it first.
 */
export default async function setup(): Promise<void> {
  // No test's CLI run starts or uses the user's shared checker (a daemon that would outlive the suite and
  // tie one file's runs to another's); test/cli/shared-checker.test.ts turns it on, in folders of its own.
  process.env.CODEACT_CHECKER_DAEMON = 'off'
  if (process.env['CODEACT_DOCKER'] !== '1') return
  const { ensureImage } = await import('./docker/helpers.js')
  await ensureImage()
}
