/**
 * The layer order, enforced: every import points down (or stays within its layer), and no folder cycles.
 * `LAYERS` is the one table; CONTRIBUTING.md's Layers section lists the same layers (a test compares them).
 *   vocabulary/, guest/ → program/ → sdk/, sandbox/ → runtime/ → cli/, mcp/, adapters/
 * guest/ (what runs inside a sandbox's program realm) sits at the bottom and imports only itself: the host
 * imports its shared constants (guest/limits.ts), never the other way round.
 */
const LAYERS = [
  { level: 0, name: 'vocabulary and the guest', folders: ['vocabulary', 'guest'] },
  { level: 1, name: 'the program pipeline', folders: ['program'] },
  { level: 2, name: 'what the model sees / backends', folders: ['sdk', 'sandbox'] },
  { level: 3, name: 'orchestration', folders: ['runtime'] },
  { level: 4, name: 'front doors', folders: ['cli', 'mcp', 'adapters'] },
]

const folderRe = (/** @type {string[]} */ folders) => `^(${folders.join('|')})/`
const above = (/** @type {number} */ level) => LAYERS.filter((l) => l.level > level).flatMap((l) => l.folders)

/** One rule per layer: nothing in it imports a folder of a higher layer. */
const upward = LAYERS.filter((l) => above(l.level).length > 0).map((l) => ({
  name: `no-upward-import-from-${l.folders.join('-')}`,
  comment: `${l.folders.join('/, ')}/ (layer ${l.level}) may import only layers 0–${l.level}; ${above(l.level).join('/, ')}/ sit above it.`,
  severity: 'error',
  from: { path: folderRe(l.folders) },
  to: { path: folderRe(above(l.level)) },
}))

module.exports = {
  forbidden: [
    ...upward,
    {
      // Within layer 1 the backends use what the model sees (the prelude), never the other way round.
      name: 'no-sdk-to-sandbox',
      comment: 'sdk/ must not import sandbox/ (sandbox/ imports sdk/; the other direction would be a folder cycle).',
      severity: 'error',
      from: { path: '^sdk/' },
      to: { path: '^sandbox/' },
    },
    {
      name: 'no-circular',
      comment: 'Modules must not import each other in a cycle.',
      severity: 'error',
      from: { path: folderRe(LAYERS.flatMap((l) => l.folders)) },
      to: { circular: true },
    },
    {
      name: 'no-product-to-tests',
      comment: 'Shipped code never imports tests, benchmarks, examples or scripts.',
      severity: 'error',
      from: { path: folderRe(LAYERS.flatMap((l) => l.folders)) },
      to: { path: '^(test|bench|examples|scripts)/' },
    },
    {
      name: 'guest-stands-alone',
      comment: 'guest/ runs inside the sandbox (bundled at build time): it imports only its own files and the packages it bundles.',
      severity: 'error',
      from: { path: '^guest/' },
      to: { path: '^(?!guest/)', dependencyTypesNot: ['npm', 'npm-dev'] },
    },
    {
      name: 'images-stand-alone',
      comment: 'images/ runs inside the container: it imports only Node built-ins and its own files.',
      severity: 'error',
      from: { path: '^images/' },
      to: { path: '^(?!images/)', dependencyTypesNot: ['core'] },
    },
  ],
  options: {
    // Shipped code and the image; tests, benches and scripts may import any layer.
    includeOnly: `^(${[...LAYERS.flatMap((l) => l.folders), 'images'].join('|')})/`,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
}

// Not part of dependency-cruiser's schema (so not enumerable): the layer test reads it.
Object.defineProperty(module.exports, 'LAYERS', { value: LAYERS, enumerable: false })
