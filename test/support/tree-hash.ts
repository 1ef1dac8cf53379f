/**
 * A digest of a folder tree as it is on disk — every name, type, mode, content and symlink target, never
 * following a link — to assert "nothing changed" across an attack.
 */
import { createHash } from 'node:crypto'
import { lstatSync, readFileSync, readdirSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'

/** Every entry under `root`, sorted; `skip`: top-level names left out (say `.git`). */
export function treeListing(root: string, skip: readonly string[] = []): string[] {
  const out: string[] = []
  const visit = (dir: string, prefix: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (prefix === '' && skip.includes(name)) continue
      const path = join(dir, name)
      const rel = prefix === '' ? name : `${prefix}/${name}`
      const st = lstatSync(path)
      const mode = (st.mode & 0o7777).toString(8)
      if (st.isSymbolicLink()) out.push(`${rel} -> ${readlinkSync(path)}`)
      else if (st.isDirectory()) {
        out.push(`${rel}/ ${mode}`)
        visit(path, rel)
      } else if (st.isFile()) out.push(`${rel} ${mode} ${createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 16)}`)
      else out.push(`${rel} other`)
    }
  }
  visit(root, '')
  return out
}

export function treeHash(root: string, skip: readonly string[] = []): string {
  return createHash('sha256').update(treeListing(root, skip).join('\n')).digest('hex')
}
