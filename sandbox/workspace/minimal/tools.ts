/**
 * Minimal mode's tools in the vendors' own schemas: Anthropic's `bash` + `str_replace_based_edit_tool`
 * (default) or OpenAI's `shell` + `apply_patch`. The shell is the session's persistent one (shell-pool.ts).
 */
import { defineTool } from '../../../vocabulary/define-tool.js'
import { zodApi } from '../../../sdk/lazy-module.js'
import type { ToolContext, ToolDefinition } from '../../../vocabulary/types.js'
import { forgetPlainDirs, type WorkspaceState } from '../guard.js'
import { WorkspaceError, type WorkspaceOps } from '../ops.js'
import { opsFor } from '../fs-tools.js'
import { DEFAULT_BASH_TIMEOUT_MS, MAX_BASH_TIMEOUT_MS } from '../bash-tool.js'
import { applyPatch, operationToPatch } from './apply-patch.js'
import { runEditor } from './editor.js'
import type { ShellPool } from './shell-pool.js'
import type { ShellRun } from './shell.js'

/** Characters of output kept per stream of one command (the shell's output cap). */
export const MAX_SHELL_OUTPUT_CHARS = 100_000

export interface MinimalToolsEnv {
  state: WorkspaceState
  host: WorkspaceOps
  shells: ShellPool
  /** Which session a call belongs to (its shell). */
  sessionKey(ctx: ToolContext): string
  /** A command's timeout when the call does not give one. */
  timeoutMs: number
  /** The editor writes through `host` even when the sandbox offers its own workspace ops (containers' shells). */
  hostFiles?: boolean
}

const filesOf = (env: MinimalToolsEnv, ctx: ToolContext): WorkspaceOps => (env.hostFiles ? env.host : opsFor(ctx, env.host))

async function runInShell(env: MinimalToolsEnv, ctx: ToolContext, command: string, timeoutMs: number, maxChars: number): Promise<ShellRun> {
  if (!env.state.config.exec) throw new WorkspaceError('EPERM', 'bash is turned off for this workspace (exec disabled)')
  forgetPlainDirs(env.state)
  try {
    const run = await env.shells.get(env.sessionKey(ctx)).run(command, timeoutMs, maxChars, ctx.signal)
    if (run.denied) ctx.reportDenial({ code: run.denied, message: run.deniedMessage ?? `the kernel refused (${run.denied})` })
    return run
  } finally {
    forgetPlainDirs(env.state)
  }
}

const capNote = (run: ShellRun) =>
  run.truncated ? `\n[output truncated: over ${MAX_SHELL_OUTPUT_CHARS} characters per stream (the shell's output cap)]` : ''

function timeoutText(run: ShellRun, timeoutMs: number): string {
  const kept = run.lost
    ? 'the shell itself was busy and was restarted: cwd, variables and functions are reset'
    : 'the shell keeps its cwd, variables and functions'
  return `the command timed out after ${timeoutMs} ms and was killed with the processes it started; ${kept}`
}

function anthropicBash(env: MinimalToolsEnv): ToolDefinition {
  const z = zodApi()
  return defineTool({
    name: 'bash',
    description:
      'Run commands in a persistent bash session (cwd, environment, functions and background jobs carry over between calls), confined to the workspace. `restart: true` starts a fresh session.',
    parameters: z.object({
      command: z.string().optional().describe('The bash command to run. Required unless the tool is being restarted.'),
      restart: z.boolean().optional().describe('Specifying true will restart this tool. Otherwise, leave this unspecified.'),
    }),
    output: z.string(),
    timeoutMs: MAX_BASH_TIMEOUT_MS + 5_000,
    execute: async ({ command, restart }, ctx) => {
      if (restart === true) {
        await env.shells.end(env.sessionKey(ctx))
        return 'tool has been restarted.'
      }
      if (command === undefined || command === '')
        throw new WorkspaceError('EINVAL', 'no command provided; pass `command`, or `restart: true`')
      const run = await runInShell(env, ctx, command, env.timeoutMs, MAX_SHELL_OUTPUT_CHARS)
      const out = run.stdout + (run.stderr && run.stdout && !run.stdout.endsWith('\n') ? '\n' : '') + run.stderr
      if (run.timedOut) throw new WorkspaceError('ETIMEDOUT', `${timeoutText(run, env.timeoutMs)}${out ? `; output:\n${out}` : ''}`)
      const nl = out === '' || out.endsWith('\n') ? '' : '\n'
      const exit =
        run.exitCode === 0
          ? ''
          : run.lost
            ? `${nl}[the shell exited (${run.exitCode}); the next command starts a new one]`
            : `${nl}[exit code ${run.exitCode}]`
      return out + exit + capNote(run)
    },
  }) as ToolDefinition
}

function anthropicEditor(env: MinimalToolsEnv): ToolDefinition {
  const z = zodApi()
  return defineTool({
    name: 'str_replace_based_edit_tool',
    description: 'View, create and edit files of the workspace: view (numbered lines, view_range, folders), create, str_replace, insert.',
    parameters: z.object({
      command: z.enum(['view', 'create', 'str_replace', 'insert']),
      path: z.string().min(1).describe('Absolute path to file or directory, e.g. `/repo/file.py` or `/repo`.'),
      file_text: z.string().optional().describe('Required for `create`: the content of the file.'),
      view_range: z
        .array(z.number().int())
        .optional()
        .describe('For `view` of a file: [start, end] line numbers, 1-based; end -1 is the last line.'),
      old_str: z.string().optional().describe('Required for `str_replace`: the exact text to replace; it must occur exactly once.'),
      new_str: z.string().optional().describe('For `str_replace`: the replacement (empty when omitted).'),
      insert_line: z.number().int().optional().describe('Required for `insert`: the line after which to insert (0: the top).'),
      insert_text: z.string().optional().describe('Required for `insert`: the text to insert.'),
    }),
    output: z.string(),
    execute: async (args, ctx) => runEditor(env.state, filesOf(env, ctx), args),
  }) as ToolDefinition
}

function openaiShell(env: MinimalToolsEnv): ToolDefinition {
  const z = zodApi()
  const outcome = z.union([z.object({ type: z.literal('exit'), exit_code: z.number().int() }), z.object({ type: z.literal('timeout') })])
  return defineTool({
    name: 'shell',
    description:
      'Run shell commands, in order, in a persistent bash session confined to the workspace (cwd, environment and functions carry over between calls).',
    parameters: z.object({
      commands: z.array(z.string()).min(1).describe('Ordered shell commands to run.'),
      timeout_ms: z
        .number()
        .int()
        .min(1)
        .max(MAX_BASH_TIMEOUT_MS)
        .nullable()
        .optional()
        .describe(`Per command; default ${DEFAULT_BASH_TIMEOUT_MS}`),
      max_output_length: z.number().int().min(1).nullable().optional().describe('Characters kept per stream of each command'),
    }),
    output: z.array(z.object({ stdout: z.string(), stderr: z.string(), outcome })),
    timeoutMs: MAX_BASH_TIMEOUT_MS * 4,
    execute: async ({ commands, timeout_ms, max_output_length }, ctx) => {
      const timeoutMs = timeout_ms ?? env.timeoutMs
      const max = Math.min(max_output_length ?? MAX_SHELL_OUTPUT_CHARS, MAX_SHELL_OUTPUT_CHARS)
      const out: Array<{ stdout: string; stderr: string; outcome: { type: 'exit'; exit_code: number } | { type: 'timeout' } }> = []
      for (const command of commands) {
        const run = await runInShell(env, ctx, command, timeoutMs, max)
        const stderr = run.stderr + (run.timedOut ? `\n${timeoutText(run, timeoutMs)}` : '') + capNote(run)
        out.push({
          stdout: run.stdout,
          stderr,
          outcome: run.timedOut ? { type: 'timeout' } : { type: 'exit', exit_code: run.exitCode ?? 1 },
        })
        if (run.timedOut) break
      }
      return out
    },
  }) as ToolDefinition
}

function openaiApplyPatch(env: MinimalToolsEnv): ToolDefinition {
  const z = zodApi()
  return defineTool({
    name: 'apply_patch',
    description:
      'Apply a V4A patch (*** Begin Patch / *** Add File: / *** Update File: / *** Move to: / *** Delete File: / @@ hunks / *** End Patch) to the workspace, all or nothing.',
    parameters: z.object({
      input: z.string().optional().describe('The whole patch, from *** Begin Patch to *** End Patch'),
      operation: z
        .object({ type: z.enum(['create_file', 'update_file', 'delete_file']), path: z.string().min(1), diff: z.string().optional() })
        .optional()
        .describe("The Responses API's one-file operation (its diff is V4A)"),
    }),
    output: z.string(),
    execute: async ({ input, operation }, ctx) => {
      const text = input ?? (operation ? operationToPatch(operation) : undefined)
      if (text === undefined) throw new WorkspaceError('EINVAL', 'pass `input` (a V4A patch) or `operation`')
      return applyPatch(env.state, filesOf(env, ctx), text)
    },
  }) as ToolDefinition
}

export type MinimalFlavour = 'anthropic' | 'openai'

export function minimalTools(env: MinimalToolsEnv, flavour: MinimalFlavour): ToolDefinition[] {
  return flavour === 'openai' ? [openaiShell(env), openaiApplyPatch(env)] : [anthropicBash(env), anthropicEditor(env)]
}
