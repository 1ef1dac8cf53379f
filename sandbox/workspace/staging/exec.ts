/**
 * `bash` on a staged view: the command sees the view (real tree + the run's staged changes) and its writes
 * land in the stage, never in the real tree.
 *
 * bubblewrap 0.8 has no overlay option, so an outer user + mount namespace (`unshare -rm`, unprivileged
 * since Linux 5.11) mounts a kernel overlay — lower layers: the stage's upper folder over the real root;
 * upper: a scratch folder for this one command — re-applies the view's removals in it, and runs the usual
 * bwrap confinement with the overlay bound where the workspace is. When the command is done, the outer
 * shell (not the command) lists every folder the command touched, as the overlay shows it; the scratch
 * layer and those listings are folded back into the view: new and changed entries copied in, vanished
 * ones removed. Where any of this is missing, the command is refused with EPERM saying why.
 */
import { spawn, spawnSync } from 'node:child_process'
import { lstat, mkdir, readdir, readlink, rm, symlink, writeFile } from 'node:fs/promises'
import { copyKeepingHoles } from './sparse-copy.js'
import { parseListing } from './overlay-upper.js'
import { dirname, join } from 'node:path'
import { bwrapArgs, confinedResult, watchConfined, whyNotStarted } from '../bwrap.js'
import { WorkspaceError, type ExecRequest, type ExecResult, type WorkspaceConfig } from '../ops.js'
import type { StagedView } from './view.js'

let probe: string | undefined | null = null

/** Why overlay staging cannot work on this machine, or undefined when it can (checked once). */
export function overlayProblem(bwrapPath: string): string | undefined {
  if (probe !== null) return probe
  const r = spawnSync(
    'unshare',
    [
      '--user',
      '--map-root-user',
      '--mount',
      '--',
      '/bin/sh',
      '-c',
      'd=$(mktemp -d) && mkdir $d/l $d/u $d/w $d/m && mount -t overlay overlay -o lowerdir=$d/l,upperdir=$d/u,workdir=$d/w,userxattr $d/m; r=$?; umount $d/m 2>/dev/null; rm -rf $d; exit $r',
    ],
    { encoding: 'utf8', timeout: 10_000 },
  )
  if (r.error) probe = `unshare (util-linux) is not available (${r.error.message})`
  else if (r.status !== 0)
    probe = `the kernel refused an unprivileged overlay mount (${(r.stderr || '').trim().split('\n').pop() ?? 'exit ' + r.status}); Linux 5.11+ with unprivileged user namespaces is needed`
  else {
    const b = spawnSync(bwrapPath, ['--ro-bind', '/', '/', '--unshare-all', 'true'], { encoding: 'utf8', timeout: 10_000 })
    probe = b.error || b.status !== 0 ? `bubblewrap cannot start (${b.error?.message ?? b.stderr.trim()})` : undefined
  }
  return probe
}

const OUTER = `set -u
merged=$1 lower=$2 viewup=$3 up=$4 work=$5 list=$6; shift 6
mount -t overlay overlay -o "lowerdir=$viewup:$lower,upperdir=$up,workdir=$work,userxattr" "$merged" || { echo "codeact-stage: overlay mount failed" >&2; exit 125; }
while IFS= read -r -d '' e; do
  case $e in
    R*) rm -rf -- "$merged/\${e#R}" ;;
    C*) rm -rf -- "$merged/\${e#C}" && cp -a -- "$viewup/\${e#C}" "$merged/\${e#C}" ;;
  esac
done < "$list"
"$@" 4>&-
rc=$?
cd "$up" && find . -type d -print0 | while IFS= read -r -d '' d; do
  printf 'D%s\\0' "$d"
  find "$merged/$d" -mindepth 1 -maxdepth 1 -printf 'C%f\\0'
done >&4
exit $rc`

let calls = 0

export function stagedExecFor(config: WorkspaceConfig, bwrapPath: string, programWrites: boolean) {
  return async (view: StagedView, request: ExecRequest, signal?: AbortSignal): Promise<ExecResult> => {
    if (!config.exec) throw new WorkspaceError('EPERM', 'running commands is turned off for this workspace')
    // Its commands run beside a program that writes the tree itself: a host overlay would stage only half the run.
    if (programWrites) throw new WorkspaceError('EPERM', 'bash cannot run staged in this backend; nothing ran')
    const problem = overlayProblem(bwrapPath)
    if (problem)
      throw new WorkspaceError(
        'EPERM',
        `bash cannot run in a dry-run or atomic run here: ${problem}; the command did not run (it is never run on the real tree)`,
      )
    if (/[:,\n]/.test(config.root + view.upperRoot))
      throw new WorkspaceError(
        'EPERM',
        'bash cannot run staged: the workspace or stage path holds ":" or ",", which an overlay mount cannot take; the command did not run',
      )
    if (signal?.aborted) throw new WorkspaceError('ECANCELED', 'cancelled before the command started')
    const scratch = join(dirname(view.upperRoot), `cmd-${++calls}`)
    const up = join(scratch, 'upper')
    const work = join(scratch, 'work')
    const merged = join(scratch, 'merged')
    const list = join(scratch, 'removals')
    await Promise.all([up, work, merged].map((d) => mkdir(d, { recursive: true, mode: 0o700 })))
    try {
      await writeFile(list, await removalList(view))
      const inner = bwrapArgs(config, request.cwd)
      const at = inner.findIndex((a, i) => a === '--bind' && inner[i + 1] === config.root && inner[i + 2] === config.root)
      if (at === -1)
        throw new WorkspaceError(
          'EPERM',
          'bash cannot run staged: the confinement has no workspace bind to replace; the command did not run',
        )
      inner[at + 1] = merged
      const argv = [
        '--user',
        '--map-root-user',
        '--mount',
        '--',
        '/bin/bash',
        '-c',
        OUTER,
        'codeact-stage',
        merged,
        config.root,
        view.upperRoot,
        up,
        work,
        list,
        bwrapPath,
        ...inner,
        '--',
        '/bin/sh',
        '-c',
        'printf 1 >&3 && exec 3>&- && exec /bin/bash -c "$1"',
        'codeact',
        request.command,
      ]
      const r = await run(argv, request, signal)
      await foldBack(view, up, r.listing)
      return r.result
    } finally {
      await rm(scratch, { recursive: true, force: true }).catch(() => undefined)
    }
  }
}

/** The view's removals as the overlay needs them: `R` remove, `C` remove then copy the staged folder back. */
async function removalList(view: StagedView): Promise<string> {
  const out: string[] = []
  for (const w of view.whiteouts) {
    if ([...view.whiteouts].some((o) => o !== w && w.startsWith(o + '/'))) continue
    const up = await view.upperType(w)
    if (up === undefined) out.push(`R${w}`)
    else if (up === 'dir') out.push(`C${w}`)
  }
  return out.map((e) => e + '\0').join('')
}

function run(
  argv: string[],
  request: ExecRequest,
  signal?: AbortSignal,
): Promise<{ result: ExecResult; listing: Map<string, Set<string>> }> {
  return new Promise((resolve, reject) => {
    const child = spawn('unshare', argv, {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
      detached: true,
    })
    const listing: Buffer[] = []
    child.stdio[4]?.on('data', (c: Buffer) => listing.push(c))
    child.on('error', (err) => reject(new WorkspaceError('SANDBOX_UNAVAILABLE', `could not start the staged command: ${err.message}`)))
    watchConfined(child, request, signal, (c, exitCode, sig) => {
      if (c.cancelled) return reject(new WorkspaceError('ECANCELED', 'the command was cancelled and killed'))
      if (!c.started && !c.timedOut)
        return reject(
          new WorkspaceError(
            'SANDBOX_UNAVAILABLE',
            `the staged confinement could not start the command (${whyNotStarted(c, exitCode, sig)}); the command did not run`,
          ),
        )
      resolve({ result: confinedResult(c, exitCode, sig), listing: parseListing(Buffer.concat(listing).toString('utf8')) })
    })
  })
}

/** Copies an entry of the command's layer into the view's upper folder, never through a symlink there. */
async function place(view: StagedView, rel: string, source: string, kind: 'file' | 'symlink' | 'dir'): Promise<void> {
  const parts = rel.split('/')
  let cur = view.upperRoot
  for (const part of parts.slice(0, -1)) {
    cur = join(cur, part)
    const st = await lstat(cur).catch(() => undefined)
    if (st === undefined) await mkdir(cur)
    else if (!st.isDirectory()) throw new WorkspaceError('EIO', `staging: ${rel} lies under a non-folder`)
  }
  const dest = join(cur, parts[parts.length - 1]!)
  const existing = await lstat(dest).catch(() => undefined)
  if (kind === 'dir') {
    if (existing?.isDirectory()) return
    if (existing) await rm(dest, { recursive: true, force: true })
    await mkdir(dest)
    return
  }
  if (existing) await rm(dest, { recursive: true, force: true })
  if (kind === 'symlink') await symlink(await readlink(source), dest)
  else await copyKeepingHoles(source, dest)
}

async function foldBack(view: StagedView, up: string, listing: Map<string, Set<string>>): Promise<void> {
  // Removals first: a name the view had in a touched folder that the overlay no longer shows.
  for (const [dir, shown] of listing) {
    const abs = dir === '' ? view.root : join(view.root, dir)
    const before = await view.readdir(abs).catch(() => [])
    for (const e of before) if (!shown.has(e.name)) await view.remove(join(abs, e.name), true).catch(() => undefined)
  }
  const visit = async (dir: string, prefix: string): Promise<void> => {
    for (const d of await readdir(dir, { withFileTypes: true })) {
      const rel = prefix === '' ? d.name : `${prefix}/${d.name}`
      const src = join(dir, d.name)
      if (d.isCharacterDevice()) continue // a whiteout: handled by the listings
      const kind = d.isSymbolicLink() ? 'symlink' : d.isDirectory() ? 'dir' : d.isFile() ? 'file' : undefined
      if (kind === undefined) continue // fifos, sockets: not workspace content
      const had = await view.viewType(rel)
      if (had !== undefined && (had === 'dir') !== (kind === 'dir')) await view.remove(join(view.root, rel), true)
      await place(view, rel, src, kind)
      if (kind === 'dir') await visit(src, rel)
    }
  }
  await visit(up, '')
}
