/**
 * The persistent shells of one runtime, one per session key, at most `maxShells` at once: each is a
 * long-lived confined process, so their number is a limit with a flag (`--max-shells`). All of them end
 * with the runtime, and with the host process should it exit without closing the runtime.
 */
import { WorkspaceError } from '../ops.js'
import type { PersistentShell, ShellFactory } from './shell.js'

export const DEFAULT_MAX_SHELLS = 8

const everyPool = new Set<ShellPool>()
let exitHooked = false

function hookExit(): void {
  if (exitHooked) return
  exitHooked = true
  process.once('exit', () => {
    for (const pool of everyPool) void pool.close()
  })
}

export class ShellPool {
  private readonly shells = new Map<string, PersistentShell>()
  private closed = false

  constructor(
    private readonly start: ShellFactory,
    readonly maxShells = DEFAULT_MAX_SHELLS,
  ) {
    everyPool.add(this)
    hookExit()
  }

  /** The live shell of `key`, started when it has none (or its last one ended). */
  get(key: string): PersistentShell {
    if (this.closed) throw new WorkspaceError('ECANCELED', 'the runtime is closed')
    const found = this.shells.get(key)
    if (found?.alive) return found
    this.shells.delete(key)
    if (this.shells.size >= this.maxShells)
      throw new WorkspaceError(
        'EAGAIN',
        `${this.maxShells} persistent shells are open (maxShells, --max-shells); end a session's shell or raise the limit`,
      )
    const shell = this.start()
    this.shells.set(key, shell)
    return shell
  }

  /** Ends `key`'s shell; the next command of that key starts a new one. */
  end(key: string): Promise<void> {
    const shell = this.shells.get(key)
    this.shells.delete(key)
    return Promise.resolve(shell?.close())
  }

  /** How many shells are live now. */
  get size(): number {
    return [...this.shells.values()].filter((s) => s.alive).length
  }

  /** Ends every shell; resolves once they are gone (a container's removal included). */
  async close(): Promise<void> {
    this.closed = true
    const ending = [...this.shells.values()].map((s) => s.close())
    this.shells.clear()
    everyPool.delete(this)
    await Promise.all(ending)
  }
}
