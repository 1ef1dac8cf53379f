/**
 * The host `WorkspaceOps`: bubblewrap for commands, and for files `beneath.ts`: every operation walks its
 * path from the root one component at a time by descriptor, so a component swapped for a symlink after the
 * policy looked (by a `bash` running next to the program, say) is refused at the point of use, never
 * followed. The read-only check is repeated here on the walked path: with no symlink followed, the name the
 * walk took is where the operation lands. Writes go in place unless the workspace asks for atomic ones
 * (beneath-write.ts says what each keeps).
 */
import { isWithin, relBelow } from './paths.js'
import { mkdirBeneath, readTextBeneath, readdirBeneath, removeBeneath, statBeneath, walkBeneath } from './beneath-files.js'
import { writeBeneath } from './beneath-write.js'
import { runConfined } from './bwrap.js'
import { WorkspaceError, type FileSignature, type WorkspaceConfig, type WorkspaceOps } from './ops.js'

export function createHostOps(config: WorkspaceConfig, bwrapPath = 'bwrap'): WorkspaceOps {
  const { root } = config
  /** The workspace-relative form of an absolute path the guard resolved; EACCES outside the root. */
  const relOf = (path: string): string => {
    if (!isWithin(path, root)) throw new WorkspaceError('EACCES', 'the path is outside the workspace')
    return relBelow(root, path) || '.'
  }
  const readOnlyRel = config.readOnly.map(relOf)
  const writable = (path: string): string => {
    const rel = relOf(path)
    for (const ro of readOnlyRel) {
      if (ro === '.' || rel === ro || rel.startsWith(`${ro}/`)) throw new WorkspaceError('EROFS', `${rel} is read-only`)
    }
    return rel
  }
  return {
    readFile: (path, maxBytes) => readTextBeneath(root, relOf(path), maxBytes),
    readFileSigned: async (path, maxBytes) => {
      let sig: FileSignature | undefined
      const text = await readTextBeneath(root, relOf(path), maxBytes, (st) => (sig = st))
      return { text, sig: sig! }
    },
    writeFile: (path, content) => writeBeneath(root, writable(path), content, { inPlace: config.atomicWrites !== true }),
    mkdir: (path) => mkdirBeneath(root, writable(path)),
    remove: async (path, recursive) => {
      const rel = relOf(path)
      if (rel === '.') throw new WorkspaceError('EPERM', 'the workspace root cannot be removed')
      writable(path)
      if (readOnlyRel.some((ro) => ro.startsWith(`${rel}/`))) throw new WorkspaceError('EROFS', `${rel} holds a read-only path`)
      await removeBeneath(root, rel, recursive)
    },
    readdir: (path) => readdirBeneath(root, relOf(path)),
    stat: (path) => statBeneath(root, relOf(path)),
    walk: (path, limit) => walkBeneath(root, relOf(path), limit),
    exec: (request, signal) => runConfined(config, bwrapPath, request, signal),
  }
}
