/**
 * The file tools. Each is thin: guard the path (the policy again — or, for the arguments the policy hook
 * has just judged, its answer: `guardArgs`), then one or two `WorkspaceOps` calls — the host's, or the
 * backend's from `ctx.services.workspace` — which walk the path by descriptor at the point of use.
 */
import { defineTool } from '../../vocabulary/define-tool.js'
import { zodApi } from '../../sdk/lazy-module.js'
import type { ToolContext, ToolDefinition } from '../../vocabulary/types.js'
import { globFiles, MAX_GLOB_MATCHES, MAX_GLOB_SCAN } from './glob-files.js'
import { guardArgs, guardRemove, type WorkspaceState } from './guard.js'
import { WORKSPACE_SERVICE, WorkspaceError, type WorkspaceOps } from './ops.js'

/** Largest file read_file/edit_file read, and write_file writes. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024

const OPS_METHODS = ['readFile', 'writeFile', 'mkdir', 'remove', 'readdir', 'stat', 'walk', 'exec'] as const

function isOps(v: unknown): v is WorkspaceOps {
  return typeof v === 'object' && v !== null && OPS_METHODS.every((m) => typeof (v as Record<string, unknown>)[m] === 'function')
}

/** The backend's ops when it offers them (Docker), else the host's. */
export function opsFor(ctx: ToolContext, host: WorkspaceOps): WorkspaceOps {
  const svc = ctx.services[WORKSPACE_SERVICE]
  return isOps(svc) ? svc : host
}

function checkSize(content: string): void {
  const bytes = Buffer.byteLength(content, 'utf8')
  if (bytes > MAX_FILE_BYTES) throw new WorkspaceError('EFBIG', `content is ${bytes} bytes, over the ${MAX_FILE_BYTES}-byte file limit`)
}

function countOccurrences(text: string, needle: string): number {
  let n = 0
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++
  return n
}

export function fsTools(state: WorkspaceState, host: WorkspaceOps): ToolDefinition[] {
  // zod is loaded here, by the first workspace, not by importing the library (sdk/lazy-module.ts).
  const z = zodApi()
  const pathArg = z.string().min(1).describe('Workspace-relative path (an absolute path inside the workspace also works)')
  const entryType = z.enum(['file', 'dir', 'symlink', 'other'])
  const pathResult = z.object({ path: z.string().describe('Workspace-relative path') })

  const readFile = defineTool({
    name: 'read_file',
    description: `Read a UTF-8 text file of the workspace. Fails with ENOENT if missing, EFBIG over ${MAX_FILE_BYTES} bytes, EILSEQ for binary content, EACCES outside the workspace.`,
    parameters: z.object({ path: pathArg }),
    output: z.string(),
    execute: async (args, ctx) => opsFor(ctx, host).readFile(guardArgs(state, args, args.path, 'read').real, MAX_FILE_BYTES),
  })

  const writeFile = defineTool({
    name: 'write_file',
    description:
      'Create or replace a UTF-8 text file, creating missing parent folders. Fails with EROFS on a read-only path, EACCES outside the workspace.',
    parameters: z.object({ path: pathArg, content: z.string().describe('The whole new content') }),
    output: pathResult.extend({ bytes: z.number().int() }),
    execute: async (args, ctx) => {
      const { content } = args
      checkSize(content)
      const target = guardArgs(state, args, args.path, 'write')
      await opsFor(ctx, host).writeFile(target.real, content)
      return { path: target.rel, bytes: Buffer.byteLength(content, 'utf8') }
    },
  })

  const editFile = defineTool({
    name: 'edit_file',
    description:
      'Replace an exact string in a text file. old_string must occur exactly once (include surrounding lines to make it unique) unless replace_all is true; otherwise fails with EINVAL saying how many times it occurs.',
    parameters: z.object({
      path: pathArg,
      old_string: z.string().min(1).describe('Exact text to find, whitespace included'),
      new_string: z.string().describe('Replacement text'),
      replace_all: z.boolean().optional().describe('Replace every occurrence (default false)'),
    }),
    output: pathResult.extend({ replacements: z.number().int() }),
    execute: async (args, ctx) => {
      const { old_string, new_string, replace_all } = args
      const target = guardArgs(state, args, args.path, 'write')
      const ops = opsFor(ctx, host)
      const text = await ops.readFile(target.real, MAX_FILE_BYTES)
      const count = countOccurrences(text, old_string)
      if (count === 0) throw new WorkspaceError('EINVAL', `old_string was not found in ${target.rel} (0 matches); nothing changed`)
      if (count > 1 && replace_all !== true) {
        throw new WorkspaceError(
          'EINVAL',
          `old_string occurs ${count} times in ${target.rel}; add surrounding context to make it unique, or set replace_all: true. Nothing changed`,
        )
      }
      // split/join and slicing, not String.replace: `$&` in new_string stays literal.
      const at = text.indexOf(old_string)
      const next =
        replace_all === true ? text.split(old_string).join(new_string) : text.slice(0, at) + new_string + text.slice(at + old_string.length)
      checkSize(next)
      await ops.writeFile(target.real, next)
      return { path: target.rel, replacements: replace_all === true ? count : 1 }
    },
  })

  const listDir = defineTool({
    name: 'list_dir',
    description:
      'List a folder of the workspace (use "." for the root): entries sorted by name, with type and size in bytes. Symlinks are listed, not followed.',
    parameters: z.object({ path: pathArg }),
    output: z.array(z.object({ name: z.string(), type: entryType, size: z.number() })),
    execute: async (args, ctx) => opsFor(ctx, host).readdir(guardArgs(state, args, args.path, 'read').real),
  })

  const glob = defineTool({
    name: 'glob',
    description: `Find files (and symlinks) by pattern, workspace-relative, sorted. Supports ** (any folders), *, ?, [abc], {a,b}; * also matches dotfiles. Skips what .gitignore files (and .git/info/exclude) ignore and the .git/ folder itself, like ripgrep; pass include_ignored: true to match those too. Never follows symlinked folders. Fails with E2BIG past ${MAX_GLOB_MATCHES} matches or ${MAX_GLOB_SCAN} scanned entries: narrow the pattern.`,
    parameters: z.object({
      pattern: z.string().min(1).describe('e.g. "src/**/*.ts" or "*.{json,md}"'),
      include_ignored: z.boolean().optional().describe('Also match files .gitignore ignores, and .git/ (default false)'),
    }),
    output: z.array(z.string()),
    execute: async ({ pattern, include_ignored }, ctx) =>
      globFiles(state, opsFor(ctx, host), pattern, include_ignored === true, MAX_FILE_BYTES),
  })

  const stat = defineTool({
    name: 'stat',
    description: 'Type, size (bytes), modification time and permission bits of a path. A symlink is described itself, not its target.',
    parameters: z.object({ path: pathArg }),
    output: pathResult.extend({
      type: entryType,
      size: z.number(),
      mtime: z.string().describe('ISO 8601'),
      mode: z.string().describe('octal, e.g. "0644"'),
    }),
    execute: async (args, ctx) => {
      const target = guardArgs(state, args, args.path, 'read')
      const info = await opsFor(ctx, host).stat(target.real)
      return {
        path: target.rel,
        type: info.type,
        size: info.size,
        mtime: new Date(info.mtimeMs).toISOString(),
        mode: `0${info.mode.toString(8)}`,
      }
    },
  })

  const mkdir = defineTool({
    name: 'mkdir',
    description: 'Create a folder and any missing parents (fine if it already exists). Fails with EROFS on a read-only path.',
    parameters: z.object({ path: pathArg }),
    output: pathResult,
    execute: async (args, ctx) => {
      const target = guardArgs(state, args, args.path, 'write')
      await opsFor(ctx, host).mkdir(target.real)
      return { path: target.rel }
    },
  })

  const remove = defineTool({
    name: 'remove',
    description:
      'Remove a file, a symlink (not its target) or a folder (non-empty folders need recursive: true). The workspace root cannot be removed (EPERM); read-only paths give EROFS.',
    parameters: z.object({ path: pathArg, recursive: z.boolean().optional().describe('Remove a folder with everything in it') }),
    output: pathResult,
    execute: async ({ path, recursive }, ctx) => {
      const target = guardRemove(state, path)
      await opsFor(ctx, host).remove(target.real, recursive === true)
      return { path: target.rel }
    },
  })

  return [readFile, writeFile, editFile, listDir, glob, stat, mkdir, remove] as ToolDefinition[]
}
