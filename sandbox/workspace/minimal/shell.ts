/**
 * What a persistent shell is to Minimal mode, wherever it runs: under bubblewrap on the host
 * (shell-session.ts) or inside a codeact container (sandbox/docker/minimal-shell.ts). The sandbox chosen
 * gives the factory; the pool and the tools see only this.
 */
export interface ShellRun {
  stdout: string
  stderr: string
  /** null when the shell itself was lost (timeout in a builtin, `exit`). */
  exitCode: number | null
  timedOut: boolean
  truncated: boolean
  /** The shell ended with this command: its state (cwd, variables, functions, jobs) is gone. */
  lost: boolean
  denied?: 'EROFS' | 'EACCES' | 'EPERM'
  deniedMessage?: string
}

export interface PersistentShell {
  readonly alive: boolean
  /** One command at a time, in the order asked. */
  run(command: string, timeoutMs: number, maxChars: number, signal?: AbortSignal): Promise<ShellRun>
  /** Ends the shell and everything it started; idempotent. Resolves once nothing of it is left. */
  close(): void | Promise<void>
}

/** Starts one shell (called by the pool when a session has none). */
export type ShellFactory = () => PersistentShell

/** Where shells come from: the factory, and the workspace root as the shell names it, if not the host's. */
export interface ShellHost {
  start: ShellFactory
  /** The workspace's path inside the shell's world (a container's mount), accepted by the editor too. */
  rootAlias?: string
}
