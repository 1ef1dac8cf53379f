/**
 * `ast_grep`: find code by its syntax tree (ast-grep's patterns and rules) across the workspace's files,
 * and rewrite it. Files are found like `glob` (.gitignore respected), read and written through the same
 * ops as `read_file`/`write_file` — so the policy, a staged run's view, the change list and the dry-run
 * diff treat its writes as theirs. A rewrite is worked out for every file before the first is written, so a
 * read-only file among them refuses the whole call (EROFS) with nothing changed.
 */
import { defineTool } from '../../vocabulary/define-tool.js'
import { zodApi } from '../../sdk/lazy-module.js'
import type { ToolDefinition } from '../../vocabulary/types.js'
import { AST_LANGS, defaultGlob, langNamed, langOf, type AstLang } from './ast-langs.js'
import { captureNames, compileMatcher, loadNapi, matchFile, type AstMatch, type MatcherSpec } from './ast-match.js'
import { MAX_FILE_BYTES, opsFor } from './fs-tools.js'
import { globFiles, MAX_GLOB_MATCHES } from './glob-files.js'
import { guardPath, type WorkspaceState } from './guard.js'
import { WorkspaceError, type WorkspaceOps } from './ops.js'

/** Defaults and ceilings of the call's own limits (each an argument of the same name). */
export const AST_LIMITS = {
  max_files: { default: 5_000, max: MAX_GLOB_MATCHES },
  max_matches: { default: 1_000, max: 100_000 },
  max_bytes: { default: 64 * 1024 * 1024, max: 1024 * 1024 * 1024 },
} as const
/** Files read at once. */
const READ_AHEAD = 16

const GLOB_CHARS = /[*?[{]/

export interface AstGrepArgs extends MatcherSpec {
  rewrite?: string | undefined
  lang?: string | undefined
  paths?: string[] | undefined
  include_ignored?: boolean | undefined
  max_files?: number | undefined
  max_matches?: number | undefined
  max_bytes?: number | undefined
}

function limit(args: AstGrepArgs, key: keyof typeof AST_LIMITS): number {
  const v = args[key] ?? AST_LIMITS[key].default
  if (v > AST_LIMITS[key].max) throw new WorkspaceError('EINVAL', `${key} is at most ${AST_LIMITS[key].max}, got ${v}`)
  return v
}

/** The files a call covers: globs as `glob` finds them, a folder as everything under it, a file as itself. */
async function filesOf(state: WorkspaceState, ops: WorkspaceOps, args: AstGrepArgs, langs: readonly AstLang[]): Promise<string[]> {
  const found = new Set<string>()
  const ignored = args.include_ignored === true
  const add = async (pattern: string, keep: (rel: string) => boolean): Promise<void> => {
    for (const rel of await globFiles(state, ops, pattern, ignored, MAX_FILE_BYTES)) if (keep(rel)) found.add(rel)
  }
  const ours = (rel: string): boolean => langs.includes(langOf(rel) as AstLang)
  for (const p of args.paths ?? ['.']) {
    if (GLOB_CHARS.test(p)) {
      await add(p, ours)
      continue
    }
    const target = guardPath(state, p, 'read')
    const info = await ops.stat(target.real)
    if (info.type === 'dir') await add(target.rel === '.' ? defaultGlob(langs) : `${target.rel}/${defaultGlob(langs)}`, ours)
    else found.add(target.rel)
  }
  return [...found].sort()
}

interface Read {
  file: string
  text?: string
  skipped?: string
}

/** Every file's text, a few at a time; a binary or oversized file is skipped and said so. */
async function readAll(state: WorkspaceState, ops: WorkspaceOps, files: readonly string[], maxBytes: number): Promise<Read[]> {
  const out: Read[] = new Array(files.length)
  let bytes = 0
  for (let i = 0; i < files.length; i += READ_AHEAD) {
    await Promise.all(
      files.slice(i, i + READ_AHEAD).map(async (file, j) => {
        const text = await ops.readFile(guardPath(state, file, 'read').real, MAX_FILE_BYTES).catch((err: unknown) => {
          const code = err instanceof Error && 'code' in err ? String(err.code) : ''
          if (code === 'EFBIG' || code === 'EILSEQ') return { code }
          throw err
        })
        if (typeof text !== 'string') out[i + j] = { file, skipped: text.code === 'EFBIG' ? `over ${MAX_FILE_BYTES} bytes` : 'binary' }
        else {
          bytes += text.length
          out[i + j] = { file, text }
        }
      }),
    )
    if (bytes > maxBytes)
      throw new WorkspaceError('E2BIG', `the files hold more than max_bytes (${maxBytes}) of text; narrow paths or raise max_bytes`)
  }
  return out
}

export interface AstGrepResult {
  matches: AstMatch[]
  total_matches: number
  files_scanned: number
  truncated?: boolean
  changed?: { file: string; edits: number }[]
  skipped?: { file: string; reason: string }[]
}

function pickLangs(args: AstGrepArgs): AstLang[] {
  if (args.lang === undefined) return [...AST_LANGS]
  const lang = langNamed(args.lang)
  if (!lang) throw new WorkspaceError('EINVAL', `lang ${JSON.stringify(args.lang)} is not one of ${AST_LANGS.join(', ')}`)
  return [lang]
}

async function astGrep(state: WorkspaceState, ops: WorkspaceOps, args: AstGrepArgs): Promise<AstGrepResult> {
  if ((args.pattern === undefined) === (args.rule === undefined))
    throw new WorkspaceError(
      'EINVAL',
      'give exactly one of pattern (e.g. "foo($$$ARGS)") or rule (e.g. { kind: "identifier", regex: "^foo$" })',
    )
  const [maxFiles, maxMatches, maxBytes] = [limit(args, 'max_files'), limit(args, 'max_matches'), limit(args, 'max_bytes')]
  const langs = pickLangs(args)
  const n = await loadNapi()
  const files = await filesOf(state, ops, args, langs)
  if (files.length > maxFiles)
    throw new WorkspaceError('E2BIG', `${files.length} files to parse, over max_files (${maxFiles}); narrow paths or raise max_files`)
  const names = captureNames(args, args.rewrite)
  const matchers = new Map<AstLang, ReturnType<typeof compileMatcher>>()
  // Every language the files hold, checked before the first file is parsed (with no files, the first asked).
  const used = new Set(langs.length === 1 ? langs : files.map(langOf).filter((l): l is AstLang => l !== undefined))
  for (const lang of used.size ? used : langs.slice(0, 1)) matchers.set(lang, compileMatcher(n, lang, args))
  const result: AstGrepResult = { matches: [], total_matches: 0, files_scanned: 0 }
  const writes: { file: string; next: string; edits: number }[] = []
  const reads = await readAll(state, ops, files, maxBytes)
  for (let i = 0; i < reads.length; i += READ_AHEAD) {
    const batch = reads.slice(i, i + READ_AHEAD).map(async (read) => {
      const lang = langs.length === 1 ? langs[0]! : langOf(read.file)
      if (read.text === undefined || lang === undefined) return { read }
      return {
        read,
        one: await matchFile(n, lang, matchers.get(lang) ?? compileMatcher(n, lang, args), read.file, read.text, args.rewrite, names),
      }
    })
    for (const { read, one } of await Promise.all(batch)) {
      if (!one) {
        ;(result.skipped ??= []).push({ file: read.file, reason: read.skipped ?? 'not a language ast_grep reads' })
        continue
      }
      result.files_scanned++
      result.total_matches += one.matches.length
      for (const m of one.matches) if (result.matches.length < maxMatches) result.matches.push(m)
      if (one.next !== undefined) writes.push({ file: read.file, next: one.next, edits: one.edits })
    }
  }
  if (result.total_matches > result.matches.length) result.truncated = true
  if (args.rewrite !== undefined) result.changed = await writeAll(state, ops, writes)
  return result
}

/** Writes every rewritten file, after checking each may be written: one read-only file and none is. */
async function writeAll(
  state: WorkspaceState,
  ops: WorkspaceOps,
  writes: readonly { file: string; next: string; edits: number }[],
): Promise<{ file: string; edits: number }[]> {
  const targets = writes.map((w) => {
    try {
      return guardPath(state, w.file, 'write').real
    } catch (err) {
      if (err instanceof WorkspaceError && err.code === 'EROFS')
        throw new WorkspaceError(
          'EROFS',
          `${JSON.stringify(w.file)} is read-only and the rewrite would change it; nothing was written (leave it out of paths)`,
        )
      throw err
    }
  })
  for (let i = 0; i < writes.length; i += READ_AHEAD)
    await Promise.all(writes.slice(i, i + READ_AHEAD).map((w, j) => ops.writeFile(targets[i + j]!, w.next)))
  return writes.map(({ file, edits }) => ({ file, edits }))
}

export function astGrepTool(state: WorkspaceState, host: WorkspaceOps): ToolDefinition {
  const z = zodApi()
  const object = z.record(z.string(), z.json())
  const position = z.object({ line: z.number().int(), column: z.number().int() })
  const count = (key: keyof typeof AST_LIMITS, what: string) =>
    z.number().int().min(1).max(AST_LIMITS[key].max).optional().describe(`${what} (default ${AST_LIMITS[key].default})`)
  return defineTool({
    name: 'ast_grep',
    description:
      'Find code by its syntax tree, not its text (ast-grep), and optionally rewrite every match: comments and strings never match, whitespace and line breaks do not matter. pattern is code with $NAME for one node and $$$NAME for any number (e.g. "util.joinValues($$$ARGS)"); rule is an ast-grep rule object instead (e.g. { kind: "property_identifier", regex: "^joinValues$" }). rewrite is a template using the same $NAME / $$$NAME. Languages: typescript, tsx, javascript, html, css, chosen by file extension unless lang is given. Lines and columns count from 1. Fails with EINVAL for a pattern that does not parse, EROFS (nothing written) if a read-only file would change, E2BIG past max_files / max_bytes.',
    parameters: z.object({
      pattern: z.string().optional().describe('Code to find, e.g. "console.log($$$ARGS)" or "$OBJ.joinValues($$$ARGS)"'),
      rule: object.optional().describe('An ast-grep rule object instead of pattern: pattern, kind, regex, inside, has, all, any, not …'),
      constraints: object.optional().describe('Rules a captured $NAME must also match, e.g. { NAME: { regex: "^use" } }'),
      utils: object.optional().describe('Named rules the rule refers to with matches'),
      rewrite: z.string().optional().describe('Replace each match with this template, e.g. "logger.debug($$$ARGS)"'),
      lang: z
        .string()
        .optional()
        .describe(`One of ${AST_LANGS.join(', ')} (ts, js also work); only files of it are read`),
      paths: z.array(z.string().min(1)).optional().describe('Globs, folders or files, workspace-relative (default: the whole workspace)'),
      include_ignored: z.boolean().optional().describe('Also read files .gitignore ignores (default false)'),
      max_files: count('max_files', 'Most files to parse'),
      max_matches: count('max_matches', 'Most matches to list (all are rewritten)'),
      max_bytes: count('max_bytes', 'Most bytes of text to read'),
    }),
    output: z.object({
      matches: z.array(
        z.object({
          file: z.string(),
          range: z.object({ start: position, end: position }),
          text: z.string(),
          captures: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
        }),
      ),
      total_matches: z.number().int(),
      files_scanned: z.number().int(),
      truncated: z.boolean().optional().describe('More matches than max_matches: only the first are listed'),
      changed: z
        .array(z.object({ file: z.string(), edits: z.number().int() }))
        .optional()
        .describe('With rewrite: the files written'),
      skipped: z.array(z.object({ file: z.string(), reason: z.string() })).optional(),
    }),
    execute: async (args, ctx) => astGrep(state, opsFor(ctx, host), args),
  }) as ToolDefinition
}
