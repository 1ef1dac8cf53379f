/**
 * Reading back the upper layer a kernel overlay left (a Docker staged run, sandbox/docker/staged.ts):
 * which entries of the real tree it hides. A whiteout (a 0/0 character device) hides one name; an opaque
 * folder (the `user.overlay.opaque` attribute, `userxattr` mounts) hides all the lower folder's names it
 * does not hold itself. Node cannot read extended attributes, so the kernel does it: the upper layer is
 * mounted read-only over the real tree once more, in a private mount namespace (unprivileged: a user
 * namespace), and every folder the upper layer has is listed as that overlay shows it. A lower name the
 * listing lacks is hidden: a removal, in the StagedView's terms a whiteout. A whole-copy stage (gVisor's)
 * needs no kernel: what the copy lacks is hidden.
 */
import { spawn } from 'node:child_process'
import { lstat, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const LIST = `set -u
upper=$1 lower=$2 m=$3
mount -t overlay overlay -o "lowerdir=$upper:$lower,userxattr" "$m" || { echo "codeact-stage: overlay mount failed" >&2; exit 125; }
cd "$upper" && find . -type d -print0 | while IFS= read -r -d '' d; do
  printf 'D%s\\0' "$d"
  find "$m/$d" -mindepth 1 -maxdepth 1 -printf 'C%f\\0'
done`

function listing(upper: string, lower: string, at: string): Promise<string> {
  // Root needs no user namespace (and keeps its access to files the container's user owns).
  const argv = process.getuid?.() === 0 ? ['--mount', '--'] : ['--user', '--map-root-user', '--mount', '--']
  return new Promise((resolve, reject) => {
    const child = spawn('unshare', [...argv, '/bin/bash', '-c', LIST, 'codeact-upper', upper, lower, at], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    })
    const out: Buffer[] = []
    let err = ''
    child.stdout.on('data', (c: Buffer) => out.push(c))
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')))
    child.on('error', (e) => reject(new Error(`the stage could not be read back: ${e.message}`)))
    child.on('close', (code) => {
      if (code === 0) return resolve(Buffer.concat(out).toString('utf8'))
      reject(new Error(`the stage could not be read back (${err.trim().split('\n').pop() || `exit ${code}`})`))
    })
  })
}

/** `D<dir>\0C<name>\0…` → folder (workspace-relative, '' for the root) → the names the overlay shows in it. */
export function parseListing(text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>()
  let cur: Set<string> | undefined
  for (const rec of text.split('\0')) {
    if (rec.startsWith('D')) out.set(rec.slice(1).replace(/^\.\/?/, ''), (cur = new Set()))
    else if (rec.startsWith('C')) cur?.add(rec.slice(1))
  }
  return out
}

/** Workspace-relative paths of the real tree (`lower`) that the upper layer hides, outermost only. */
export async function overlayRemovals(upper: string, lower: string): Promise<string[]> {
  const at = await mkdtemp(join(tmpdir(), 'codeact-upper-'))
  let text: string
  try {
    text = await listing(upper, lower, at)
  } finally {
    await rm(at, { recursive: true, force: true }).catch(() => undefined)
  }
  const hidden: string[] = []
  for (const [dir, names] of parseListing(text)) {
    const real = await readdir(dir === '' ? lower : join(lower, dir)).catch(() => [] as string[])
    for (const name of real) if (!names.has(name)) hidden.push(dir === '' ? name : `${dir}/${name}`)
  }
  return hidden.sort()
}

/** The same for a whole-copy stage (gVisor): real entries the copy no longer has, outermost only. */
export async function copyRemovals(copy: string, lower: string): Promise<string[]> {
  const hidden: string[] = []
  const visit = async (rel: string): Promise<void> => {
    const dirents = await readdir(rel === '' ? lower : join(lower, rel), { withFileTypes: true }).catch(() => [])
    for (const d of dirents) {
      const r = rel === '' ? d.name : `${rel}/${d.name}`
      const there = await lstat(join(copy, r)).catch(() => undefined)
      if (there === undefined) hidden.push(r)
      else if (d.isDirectory() && there.isDirectory()) await visit(r)
    }
  }
  await visit('')
  return hidden.sort()
}
