/**
 * What a persistent shell is to Minimal mode, wherever it runs: under bubblewrap on the host
 * (shell-session.ts) or inside a codeact container (sandbox/docker/minimal-shell.ts). The sandbox chosen
 * gives the factory; the pool and the tools see only this.
 */
import type { ExecResult } from '../ops.js'

/** A command's answer as `exec` gives it, without the signal; `exitCode` is null when the shell itself was lost. */
export type ShellRun = Omit<ExecResult, 'signal'> & {
  /** The shell ended with this command: its state (cwd, variables, functions, jobs) is gone. */
  lost: boolean
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
