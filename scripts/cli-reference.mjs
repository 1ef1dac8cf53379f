// Prints docs/cli.md, the CLI reference, from the parser's own definitions (cli/commands.ts, cli/flag-docs.ts,
// through the build in dist/): `npm run build && node scripts/cli-reference.mjs > docs/cli.md`.
// test/cli/conventions.test.ts fails when docs/cli.md differs from what this prints.
const { referenceMarkdown } = await import(new URL('../dist/cli/help.js', import.meta.url).href)
process.stdout.write(referenceMarkdown())
