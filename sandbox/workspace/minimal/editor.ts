/**
 * Anthropic's `str_replace_based_edit_tool` (text_editor_20250728): `view` (numbered lines, a range, or a
 * folder two levels deep), `create`, `str_replace` (exactly one match, else the count), `insert`. Result
 * texts follow Anthropic's reference implementation, so a model trained on them reads what it expects.
 * Every path goes through the workspace policy (guardPath) and the ops' point-of-use checks.
 */
import { guardPath, type WorkspaceState } from '../guard.js'
import { WorkspaceError, type WorkspaceOps } from '../ops.js'
import { MAX_FILE_BYTES } from '../fs-tools.js'

export interface EditorArgs {
  command: 'view' | 'create' | 'str_replace' | 'insert'
  path: string
  file_text?: string | undefined
  view_range?: number[] | undefined
  old_str?: string | undefined
  new_str?: string | undefined
  insert_line?: number | undefined
  insert_text?: string | undefined
}

/** Entries a folder view lists at most (the rest is counted, not listed). */
export const MAX_VIEW_ENTRIES = 2_000
const SNIPPET_LINES = 4

function numbered(lines: readonly string[], first: number): string {
  return lines.map((l, i) => `${String(i + first).padStart(6)}\t${l}`).join('\n')
}

function splitLines(text: string): string[] {
  const lines = text.split('\n')
  if (lines.length > 1 && lines.at(-1) === '') lines.pop()
  return lines
}

export async function runEditor(state: WorkspaceState, ops: WorkspaceOps, a: EditorArgs): Promise<string> {
  switch (a.command) {
    case 'view':
      return view(state, ops, a)
    case 'create': {
      if (a.file_text === undefined) throw new WorkspaceError('EINVAL', 'Parameter `file_text` is required for command: create')
      const target = guardPath(state, a.path, 'write')
      if (await exists(ops, target.real))
        throw new WorkspaceError('EEXIST', `File already exists at: ${a.path}. Cannot overwrite files using command \`create\`.`)
      await ops.writeFile(target.real, a.file_text)
      return `File created successfully at: ${a.path}`
    }
    case 'str_replace':
      return strReplace(state, ops, a)
    case 'insert':
      return insert(state, ops, a)
  }
}

async function exists(ops: WorkspaceOps, real: string): Promise<boolean> {
  try {
    await ops.stat(real)
    return true
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return false
    throw e
  }
}

async function view(state: WorkspaceState, ops: WorkspaceOps, a: EditorArgs): Promise<string> {
  const target = guardPath(state, a.path, 'read')
  const info = await ops.stat(target.real).catch((e: { code?: string }) => {
    if (e.code === 'ENOENT') throw new WorkspaceError('ENOENT', `The path ${a.path} does not exist. Please provide a valid path.`)
    throw e
  })
  if (info.type === 'dir') {
    if (a.view_range) throw new WorkspaceError('EINVAL', 'The `view_range` parameter is not allowed when `path` points to a directory.')
    const walk = await ops.walk(target.real, MAX_VIEW_ENTRIES * 4)
    const shown = walk.entries.filter((e) => e.path.split('/').length <= 2 && !e.path.split('/').some((s) => s.startsWith('.')))
    const base = a.path.replace(/\/+$/, '') || a.path
    const listed = shown.slice(0, MAX_VIEW_ENTRIES).map((e) => `${base}/${e.path}`)
    const more = shown.length > MAX_VIEW_ENTRIES || walk.truncated ? `\n… more entries not listed (at most ${MAX_VIEW_ENTRIES} are)` : ''
    return `Here's the files and directories up to 2 levels deep in ${a.path}, excluding hidden items:\n${[base, ...listed].join('\n')}${more}\n`
  }
  const lines = splitLines(await ops.readFile(target.real, MAX_FILE_BYTES))
  let first = 1
  let shown = lines
  if (a.view_range) {
    const [from, to] = a.view_range
    const n = lines.length
    if (a.view_range.length !== 2 || !Number.isInteger(from) || !Number.isInteger(to))
      throw new WorkspaceError('EINVAL', 'Invalid `view_range`. It should be a list of two integers.')
    if (from! < 1 || from! > n)
      throw new WorkspaceError(
        'EINVAL',
        `Invalid \`view_range\`: [${from}, ${to}]. Its first element \`${from}\` should be within the range of lines of the file: [1, ${n}]`,
      )
    if (to !== -1 && (to! < from! || to! > n))
      throw new WorkspaceError(
        'EINVAL',
        `Invalid \`view_range\`: [${from}, ${to}]. Its second element \`${to}\` should be -1 or within [${from}, ${n}]`,
      )
    first = from!
    shown = lines.slice(from! - 1, to === -1 ? n : to)
  }
  return `Here's the result of running \`cat -n\` on ${a.path}:\n${numbered(shown, first)}\n`
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length
}

async function strReplace(state: WorkspaceState, ops: WorkspaceOps, a: EditorArgs): Promise<string> {
  if (a.old_str === undefined) throw new WorkspaceError('EINVAL', 'Parameter `old_str` is required for command: str_replace')
  const target = guardPath(state, a.path, 'write')
  const text = await ops.readFile(target.real, MAX_FILE_BYTES)
  const at: number[] = []
  if (a.old_str !== '') for (let i = text.indexOf(a.old_str); i !== -1; i = text.indexOf(a.old_str, i + 1)) at.push(i)
  if (at.length === 0)
    throw new WorkspaceError(
      'EINVAL',
      `No replacement was performed, old_str \`${a.old_str}\` did not appear verbatim in ${a.path} (0 matches).`,
    )
  if (at.length > 1) {
    const lines = at.map((i) => lineOf(text, i))
    throw new WorkspaceError(
      'EINVAL',
      `No replacement was performed. Multiple occurrences of old_str \`${a.old_str}\` in lines ${JSON.stringify(lines)} (${at.length} matches). Please ensure it is unique`,
    )
  }
  const newStr = a.new_str ?? ''
  const next = text.slice(0, at[0]) + newStr + text.slice(at[0]! + a.old_str.length)
  await ops.writeFile(target.real, next)
  const line = lineOf(text, at[0]!)
  return `The file ${a.path} has been edited. ${snippet(next, line, newStr, a.path)}Review the changes and make sure they are as expected. Edit the file again if necessary.`
}

function snippet(text: string, line: number, inserted: string, name: string): string {
  const lines = splitLines(text)
  const start = Math.max(1, line - SNIPPET_LINES)
  const end = Math.min(lines.length, line + inserted.split('\n').length - 1 + SNIPPET_LINES)
  return `Here's the result of running \`cat -n\` on a snippet of ${name}:\n${numbered(lines.slice(start - 1, end), start)}\n`
}

async function insert(state: WorkspaceState, ops: WorkspaceOps, a: EditorArgs): Promise<string> {
  const textIn = a.insert_text ?? a.new_str
  if (a.insert_line === undefined || textIn === undefined)
    throw new WorkspaceError('EINVAL', 'Parameters `insert_line` and `insert_text` are required for command: insert')
  const target = guardPath(state, a.path, 'write')
  const text = await ops.readFile(target.real, MAX_FILE_BYTES)
  const lines = text === '' ? [] : splitLines(text)
  if (a.insert_line < 0 || a.insert_line > lines.length)
    throw new WorkspaceError(
      'EINVAL',
      `Invalid \`insert_line\` parameter: ${a.insert_line}. It should be within the range of lines of the file: [0, ${lines.length}]`,
    )
  lines.splice(a.insert_line, 0, ...splitLines(textIn))
  const next = `${lines.join('\n')}\n`
  await ops.writeFile(target.real, next)
  return `The file ${a.path} has been edited. ${snippet(next, a.insert_line + 1, textIn, 'the edited file')}Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.`
}
