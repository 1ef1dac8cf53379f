/**
 * The file half of the host `WorkspaceOps`, on `beneath.ts`: every operation walks its path from the
 * root one component at a time by descriptor, so a component swapped for a symlink after the policy
 * looked (by a `bash` running next to the program, say) is refused at the point of use, never followed.
 * The read-only check is repeated here on the walked path: with no symlink followed, the name the walk
 * took is where the operation lands. Writes go in place unless the workspace asks for atomic ones
 * (beneath-write.ts says what each keeps).
 */
import { isWithin, relBelow } from './paths.js'
import { mkdirBeneath, readTextBeneath, readdirBeneath, removeBeneath, statBeneath, walkBeneath } from './beneath-files.js'
import { writeBeneath } from './beneath-write.js'
import { WorkspaceError, type DirEntry, type FileInfo, type FileSignature, type WalkResult, type WorkspaceConfig } from './ops.js'

export class HostFs {
  private readonly readOnlyRel: string[]

  constructor(private readonly config: WorkspaceConfig) {
    this.readOnlyRel = config.readOnly.map((ro) => this.relOf(ro))
  }

  /** The workspace-relative form of an absolute path the guard resolved; EACCES outside the root. */
  private relOf(path: string): string {
    const { root } = this.config
    if (!isWithin(path, root)) throw new WorkspaceError('EACCES', 'the path is outside the workspace')
    const rel = relBelow(root, path)
    return rel === '' ? '.' : rel
  }

  private writable(path: string): string {
    const rel = this.relOf(path)
    for (const ro of this.readOnlyRel) {
      if (ro === '.' || rel === ro || rel.startsWith(`${ro}/`)) throw new WorkspaceError('EROFS', `${rel} is read-only`)
    }
    return rel
  }

  readFile(path: string, maxBytes: number): Promise<string> {
    return readTextBeneath(this.config.root, this.relOf(path), maxBytes)
  }

  async readFileSigned(path: string, maxBytes: number): Promise<{ text: string; sig: FileSignature }> {
    let sig: FileSignature | undefined
    const text = await readTextBeneath(this.config.root, this.relOf(path), maxBytes, (st) => (sig = st))
    return { text, sig: sig! }
  }

  writeFile(path: string, content: string): Promise<void> {
    return writeBeneath(this.config.root, this.writable(path), content, { inPlace: this.config.atomicWrites !== true })
  }

  mkdir(path: string): Promise<void> {
    return mkdirBeneath(this.config.root, this.writable(path))
  }

  async remove(path: string, recursive: boolean): Promise<void> {
    const rel = this.relOf(path)
    if (rel === '.') throw new WorkspaceError('EPERM', 'the workspace root cannot be removed')
    this.writable(path)
    if (this.readOnlyRel.some((ro) => ro.startsWith(`${rel}/`))) throw new WorkspaceError('EROFS', `${rel} holds a read-only path`)
    await removeBeneath(this.config.root, rel, recursive)
  }

  readdir(path: string): Promise<DirEntry[]> {
    return readdirBeneath(this.config.root, this.relOf(path))
  }

  stat(path: string): Promise<FileInfo> {
    return statBeneath(this.config.root, this.relOf(path))
  }

  walk(path: string, limit: number): Promise<WalkResult> {
    return walkBeneath(this.config.root, this.relOf(path), limit)
  }
}
