/**
 * The command line's conventions, through the real binary: --version, -h/--help for every command with its
 * own text, errors in codeact's own words (never node:util's parseArgs wording), --color checked, and a CLI
 * reference (docs/cli.md) that is exactly what the parser's definitions generate.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { referenceMarkdown } from '../../cli/help.js'

const codeact = (...args: string[]) => spawnSync(process.execPath, ['bin/codeact.mjs', ...args], { encoding: 'utf8', timeout: 60_000 })

/** What node:util's parseArgs says; none of it may reach a person. */
const NODE_WORDING =
  /Unknown option '|ERR_PARSE_ARGS|To specify a positional argument|argument missing|does not take an argument|Unexpected argument/

describe('codeact command line', () => {
  it('--version prints the package version', () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }
    for (const flag of ['--version', '-V']) {
      const r = codeact(flag)
      expect(r.status).toBe(0)
      expect(r.stdout).toBe(`codeact ${version}\n`)
    }
  })

  const commands: [string, string][] = [
    ['run', 'usage: codeact run PROGRAM.ts [options]'],
    ['sdk', 'usage: codeact sdk [options]'],
    ['replay', 'usage: codeact replay LOG.jsonl [options]'],
    ['mcp', 'usage: codeact mcp [options]'],
    ['repl', 'usage: codeact repl [options]'],
  ]
  for (const [command, usage] of commands)
    it(`codeact ${command} --help and -h print ${command}'s own usage, on stdout, exit 0`, () => {
      for (const flag of ['--help', '-h']) {
        const r = codeact(command, flag)
        expect(r.status).toBe(0)
        expect(r.stderr).toBe('')
        expect(r.stdout.split('\n')[0]).toBe(usage)
        for (const [other] of commands) if (other !== command) expect(r.stdout).not.toContain(`codeact ${other} `)
      }
      expect(codeact('help', command).stdout).toBe(codeact(command, '--help').stdout)
    })

  it('run --help lists every flag run accepts, each with what it means', () => {
    const help = codeact('run', '--help').stdout
    for (const flag of [
      '--workspace DIR',
      '--ask TOOL',
      '--dry-run',
      '--review',
      '--color auto|always|never',
      '--docker-image NAME',
      '--max-tool-calls N',
    ])
      expect(help).toMatch(new RegExp(`\\n  ${flag.replace(/[|]/g, '\\|')} +\\S`))
  })

  const mistakes: [string[], string][] = [
    [['run', 'x.ts', '--jsno'], 'codeact: codeact run has no option --jsno (did you mean --json?); codeact run --help lists them\n'],
    [['run', 'x.ts', '--frobnicate'], 'codeact: codeact run has no option --frobnicate; codeact run --help lists them\n'],
    [
      ['run', 'x.ts', '--workspace'],
      'codeact: --workspace needs a value (DIR); a value that starts with "-" is written --workspace=VALUE; codeact run --help shows its usage\n',
    ],
    [['run', 'x.ts', '--json=yes'], 'codeact: --json takes no value (got "yes"); codeact run --help shows its usage\n'],
    [
      ['run', 'x.ts', '--color=sometimes'],
      'codeact: --color must be auto, always or never, got "sometimes"; codeact run --help shows its usage\n',
    ],
    [['sdk', '--nope'], 'codeact: codeact sdk has no option --nope; codeact sdk --help lists them\n'],
    [['replay', '--json'], 'codeact: codeact replay has no option --json; codeact replay --help lists them\n'],
    [['mcp', 'extra'], 'codeact mcp: codeact mcp takes no arguments, got "extra"; codeact mcp --help shows its usage\n'],
    [['frob'], 'codeact: there is no command "frob"; codeact --help lists the commands\n'],
  ]
  for (const [args, said] of mistakes)
    it(`codeact ${args.join(' ')}: exit 2, said in codeact's words`, () => {
      const r = codeact(...args)
      expect(r.status).toBe(2)
      expect(r.stderr).toBe(said)
      expect(r.stderr).not.toMatch(NODE_WORDING)
    })

  it('docs/cli.md is what scripts/cli-reference.mjs generates from the parser (regenerate it when this fails)', () => {
    const generated = spawnSync(process.execPath, ['scripts/cli-reference.mjs'], { encoding: 'utf8' })
    expect(generated.status).toBe(0)
    expect(readFileSync('docs/cli.md', 'utf8')).toBe(generated.stdout)
    // The built script and the source say the same (a stale dist/ would hide a change).
    expect(referenceMarkdown()).toBe(generated.stdout)
  })
})
