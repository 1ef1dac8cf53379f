/** Scripted multi-step tasks and batch edits over many files, the CLI user's everyday job. */
import type { ProgramCase } from '../case.js'

export const cases: ProgramCase[] = [
  {
    name: 'rewrite an import in every file that has it',
    code: "const files = await tools.glob({ pattern: 'src/**/*.ts' })\nconst changed = []\nfor (const path of files) {\n  const text = await tools.read_file({ path })\n  if (!text.includes(\"from './old'\")) continue\n  await tools.edit_file({ path, old_string: \"from './old'\", new_string: \"from './new'\" })\n  changed.push(path)\n}\nreturn changed",
    expect: { value: ['src/a.ts', 'src/b.ts'] },
  },
  {
    name: 'count TODOs per file with Promise.all',
    code: "const files = await tools.glob({ pattern: '**/*.md' })\nconst counts = await Promise.all(files.map(async (path) => ({ path, todos: (await tools.read_file({ path })).match(/TODO/g)?.length ?? 0 })))\nreturn counts",
    expect: { value: [{ path: 'README.md', todos: 2 }] },
  },
  {
    name: 'write a report file and read it back',
    code: "const entries = await tools.list_dir({ path: 'src' })\nconst report = entries.map((e) => `${e.name}\\t${e.size}`).join('\\n')\nawait tools.write_file({ path: 'reports/src.tsv', content: report })\nreturn (await tools.read_file({ path: 'reports/src.tsv' })).split('\\n').length",
    expect: { value: 3 },
  },
  {
    name: 'a missing file is caught by its code',
    code: "try {\n  await tools.read_file({ path: 'nope.txt' })\n} catch (e) {\n  if (e instanceof ToolCallError && e.code === 'ENOENT') return 'no file'\n  throw e\n}",
    expect: { value: 'no file', failed: undefined },
  },
  {
    name: 'bump a version in package.json',
    code: "const pkg = JSON.parse(await tools.read_file({ path: 'package.json' }))\nconst [major, minor, patch] = pkg.version.split('.').map(Number)\npkg.version = `${major}.${minor}.${patch + 1}`\nawait tools.write_file({ path: 'package.json', content: JSON.stringify(pkg, null, 2) + '\\n' })\nreturn pkg.version",
    expect: { value: '1.2.4' },
  },
  {
    name: 'a path outside the workspace is refused with EACCES',
    code: "try { await tools.read_file({ path: '../../etc/passwd' }) } catch (e) { return e.code }",
    expect: { value: 'EACCES', note: /Denied|EACCES/ },
  },
]
