import { configDefaults, defineConfig } from 'vitest/config'

// The packaging test installs codeact's tarball as a user would: on Node 20 (past its end of life) that
// compiles isolated-vm 5.0.4 from source, minutes on this machine, so it runs on the maintained lines
// (scripts/test-line.sh 22|24|26 in CI); its blocked-builds half runs on every line.
const line = Number(process.versions.node.split('.')[0])

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(line < 22 ? ['test/packaging/install.test.ts'] : [])],
    globalSetup: ['test/global-setup.ts'],
    // Forks, not threads: tests spawn processes and containers; a process per file keeps them apart.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // The public API's type tests (`*.test-d.ts`, expectTypeOf) run as tests too, checked by tsc.
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
})
