/**
 * The persistent bash of Minimal mode, as a model drives it through Anthropic tool_use blocks: state
 * carries over, a timeout kills the command and leaves the session usable, restart starts afresh, and no
 * shell outlives its session, its runtime or its host.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { replayObservations } from '../../runtime/replay.js'
import { eventually, freshRoot, minimalRuntime, processesMentioning } from './support.js'

let n = 0
const use = (input: Record<string, unknown>) => ({ type: 'tool_use' as const, id: `toolu_${++n}`, name: 'bash', input })

describe('Minimal mode: the persistent bash', () => {
  it('keeps cwd, environment, functions and jobs across a 20-step session; a timeout leaves it usable', async () => {
    const { rt, root } = await minimalRuntime({ shellTimeoutMs: 1_500 })
    const step = async (input: Record<string, unknown>) => {
      const [answer] = await rt.executeToolCalls([use(input)])
      return answer as { content: string; is_error?: boolean }
    }
    const steps: Array<[Record<string, unknown>, string | RegExp]> = [
      [{ command: 'mkdir -p src/lib && cd src' }, ''],
      [{ command: 'pwd' }, `${root}/src\n`],
      [{ command: 'cd lib; pwd' }, `${root}/src/lib\n`],
      [{ command: 'export GREETING=hello; NOT_EXPORTED=kept' }, ''],
      [{ command: 'echo "$GREETING $NOT_EXPORTED"' }, 'hello kept\n'],
      [{ command: 'greet() { echo "$GREETING, $1"; }' }, ''],
      [{ command: 'greet world' }, 'hello, world\n'],
      [{ command: 'alias ll="ls -1"; shopt -s expand_aliases' }, ''],
      [{ command: 'touch a b; ll' }, 'a\nb\n'],
      [{ command: '(sleep 0.3; echo job-done > job.txt) & echo started' }, 'started\n'],
      [{ command: 'wait; echo "reaped $?"; cat job.txt' }, 'reaped 0\njob-done\n'],
      [{ command: 'jobs | wc -l' }, '0\n'],
      [{ command: 'false' }, '[exit code 1]'],
      [{ command: 'echo out; echo err >&2' }, 'out\nerr\n'],
      [{ command: 'sleep 30' }, /timed out after 1500 ms .*keeps its cwd, variables and functions/],
      [{ command: 'greet again; pwd' }, `hello, again\n${root}/src/lib\n`],
      [{ command: 'echo "unclosed' }, /unexpected EOF|matching/],
      [{ command: 'echo still $GREETING' }, 'still hello\n'],
      [{ restart: true }, 'tool has been restarted.'],
      [{ command: 'pwd; echo "[$GREETING]"; type greet 2>&1 | head -1' }, `${root}\n[]\n/bin/bash: line 1: type: greet: not found\n`],
    ]
    expect(steps).toHaveLength(20)
    const seen: string[] = []
    for (const [input, want] of steps) {
      const answer = await step(input)
      seen.push(answer.content)
      if (typeof want === 'string') expect(answer.content, JSON.stringify(input)).toBe(want)
      else expect(answer.content, JSON.stringify(input)).toMatch(want)
    }
    // The log rebuilds what the model read, byte for byte.
    const answers = rt.log.all().filter((e) => e.type === 'tool/result').length
    expect(answers).toBe(20)
    expect(replayObservations(rt.log.all()).map((o) => o.content)).toEqual(seen)
  })

  it('restarts a shell stuck in a builtin loop, and the next command works', async () => {
    const { rt } = await minimalRuntime({ shellTimeoutMs: 1_000 })
    await rt.callTool('bash', { command: 'export K=1' })
    const stuck = await rt.callTool('bash', { command: 'while :; do :; done' })
    expect(stuck.content).toMatch(/ETIMEDOUT.*itself was busy and was restarted/)
    const next = await rt.callTool('bash', { command: 'echo "next [$K]"' })
    expect(next.content).toBe('next []\n')
  })

  it('runs confined: writes outside the workspace and to read-only parts are denials', async () => {
    const root = freshRoot()
    mkdirSync(`${root}/locked`)
    const { rt } = await minimalRuntime({ workspace: { root, readOnly: ['locked'] } }, root)
    await rt.callTool('bash', { command: 'cd locked' })
    // Relative to the shell's cwd, which the last call left in the read-only folder.
    const r = await rt.callTool('bash', { command: 'echo x > f; echo y > /etc/codeact-m33; cat /root/.bashrc' })
    expect(r.ok).toBe(true)
    expect(r.content).toMatch(/^\/bin\/bash: line \d+: f: Read-only file system\n/)
    expect(r.denied).toBe(true)
    expect(JSON.stringify(rt.log.all())).toMatch(/"code":"EROFS"/)
  })

  it('bounds the shells (maxShells) and ends them with the runtime', async () => {
    const { rt, root } = await minimalRuntime({ maxShells: 2 })
    const a = await rt.executeToolCalls([use({ command: 'echo a' })], { session: 's1' })
    const b = await rt.executeToolCalls([use({ command: 'echo b' })], { session: 's2' })
    const c = await rt.executeToolCalls([use({ command: 'echo c' })], { session: 's3' })
    expect([a[0]!.content, b[0]!.content]).toEqual(['a\n', 'b\n'])
    expect(c[0]!.content).toMatch(/EAGAIN.*2 persistent shells are open \(maxShells, --max-shells\)/)
    expect(processesMentioning(root).length).toBeGreaterThan(0)
    await rt.close()
    expect(await eventually(() => processesMentioning(root).length === 0)).toBe(true)
  })

  it('leaves no shell behind when its host is killed', async () => {
    const root = freshRoot()
    const script = `
      const { createRuntime } = await import(${JSON.stringify(new URL('../../dist/runtime/create-runtime.js', import.meta.url).href)})
      const rt = await createRuntime({ mode: 'minimal', workspace: { root: ${JSON.stringify(root)} } })
      const r = await rt.callTool('bash', { command: '(sleep 600) & sleep 600 & echo up' })
      process.stdout.write(r.content)
      setInterval(() => {}, 1000)`
    const host = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
    const up = await new Promise<string>((resolve) => host.stdout.once('data', (d: Buffer) => resolve(d.toString())))
    expect(up).toBe('up\n')
    expect(processesMentioning(root).length).toBeGreaterThan(0)
    const sleeps = () => processesMentioning('600').filter((p) => readFileSafe(p).includes('sleep'))
    host.kill('SIGKILL')
    expect(await eventually(() => processesMentioning(root).length === 0)).toBe(true)
    expect(sleeps().filter((p) => readFileSafe(p).includes(root)).length).toBe(0)
  })
})

function readFileSafe(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
  } catch {
    return ''
  }
}
