/**
 * The matching half of `ast_grep`, over ast-grep's library: a pattern or a rule made a matcher (refused
 * with EINVAL, naming the fix, when it does not parse), and one file's matches as the tool returns them.
 * The library is loaded by the first call, not by creating a workspace.
 */
import type { NapiConfig, SgNode } from '@ast-grep/napi'
import type { AstLang } from './ast-langs.js'
import { applyEdits, expandTemplate, metavarNames, type Edit } from './ast-rewrite.js'
import { WorkspaceError } from './ops.js'

type Napi = typeof import('@ast-grep/napi')
let napi: Promise<Napi> | undefined
export function loadNapi(): Promise<Napi> {
  napi ??= import('@ast-grep/napi')
  return napi
}

const LANG_NAMES: Readonly<Record<AstLang, string>> = {
  typescript: 'TypeScript',
  tsx: 'Tsx',
  javascript: 'JavaScript',
  html: 'Html',
  css: 'Css',
}

export interface MatcherSpec {
  pattern?: string | undefined
  rule?: Record<string, unknown> | undefined
  constraints?: Record<string, unknown> | undefined
  utils?: Record<string, unknown> | undefined
}

export interface Position {
  /** From 1, as editors and compilers count. */
  line: number
  column: number
}

export interface AstMatch {
  file: string
  range: { start: Position; end: Position }
  text: string
  captures: Record<string, string | string[]>
}

/** Every `pattern` string inside a rule (a pattern object's `context` too). */
function rulePatterns(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) rulePatterns(v, out)
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'pattern' && typeof v === 'string') out.push(v)
      else if (k === 'pattern' && typeof v === 'object' && v !== null && typeof (v as { context?: unknown }).context === 'string')
        out.push((v as { context: string }).context)
      else rulePatterns(v, out)
    }
  }
  return out
}

/** Where a pattern does not parse as `lang`: an ERROR node, or a token the parser had to invent. */
function parseFault(n: Napi, lang: AstLang, pattern: string): string | undefined {
  const root = n.parse(n.Lang[LANG_NAMES[lang] as keyof Napi['Lang']], pattern).root()
  const bad =
    root.find({ rule: { kind: 'ERROR' } }) ??
    root.findAll({ rule: { regex: '^$' } }).find((x) => x.range().start.index === x.range().end.index && x.kind() !== root.kind())
  if (!bad) return undefined
  const { line, column } = bad.range().start
  return bad.kind() === 'ERROR' ? `a syntax error at ${line + 1}:${column + 1}` : `a missing \`${bad.kind()}\` at ${line + 1}:${column + 1}`
}

/** A matcher for `lang`, or EINVAL naming what is wrong and how to fix it. */
export function compileMatcher(n: Napi, lang: AstLang, spec: MatcherSpec): NapiConfig {
  const patterns = spec.pattern !== undefined ? [spec.pattern] : rulePatterns(spec.rule)
  for (const p of patterns) {
    if (p.trim() === '') throw new WorkspaceError('EINVAL', 'the pattern is empty: write the code to find, e.g. "console.log($$$ARGS)"')
    const fault = parseFault(n, lang, p)
    if (fault)
      throw new WorkspaceError(
        'EINVAL',
        `the pattern ${JSON.stringify(p)} does not parse as ${LANG_NAMES[lang]} (${fault}): write one whole expression or statement, with $NAME for one node and $$$NAME for a list (e.g. "foo($$$ARGS)"), or pass rule: { kind, regex, … } instead`,
      )
  }
  const config: NapiConfig = {
    rule: (spec.pattern !== undefined ? { pattern: spec.pattern } : spec.rule) as NapiConfig['rule'],
    ...(spec.constraints ? { constraints: spec.constraints as NapiConfig['constraints'] } : {}),
    ...(spec.utils ? { utils: spec.utils as NapiConfig['utils'] } : {}),
  }
  // The library checks the rule only when it is used: try it on nothing, so a bad rule is one clear refusal.
  try {
    n.parse(n.Lang[LANG_NAMES[lang] as keyof Napi['Lang']], '')
      .root()
      .findAll(config)
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*\|->/g, ': ').trim()
    throw new WorkspaceError(
      'EINVAL',
      `the ${spec.pattern !== undefined ? 'pattern' : 'rule'} is not valid ast-grep: ${why}. ${spec.pattern !== undefined ? 'Write one whole expression or statement (e.g. "foo($$$ARGS)")' : 'A rule has pattern, kind, regex, inside, has, all, any, not or matches (https://ast-grep.github.io/reference/rule.html)'}`,
    )
  }
  return config
}

function position(p: { line: number; column: number }): Position {
  return { line: p.line + 1, column: p.column + 1 }
}

function capturesOf(m: SgNode, names: readonly string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const name of names) {
    const one = m.getMatch(name)
    if (one) out[name] = one.text()
    else {
      const many = m.getMultipleMatches(name).filter((x) => x.isNamed())
      if (many.length) out[name] = many.map((x) => x.text())
    }
  }
  return out
}

export interface FileResult {
  matches: AstMatch[]
  /** The rewritten text, when a rewrite changed something. */
  next?: string
  edits: number
}

/**
 * One file's matches (each with its captures) and, given a template, its rewritten text. Parsed on the
 * library's threads (parseAsync), so a big tree does not hold the host's thread.
 */
export async function matchFile(
  n: Napi,
  lang: AstLang,
  config: NapiConfig,
  file: string,
  source: string,
  rewrite: string | undefined,
  names: readonly string[],
): Promise<FileResult> {
  const root = (await n.parseAsync(n.Lang[LANG_NAMES[lang] as keyof Napi['Lang']], source)).root()
  const found = root.findAll(config)
  const matches = found.map((m) => {
    const r = m.range()
    return { file, range: { start: position(r.start), end: position(r.end) }, text: m.text(), captures: capturesOf(m, names) }
  })
  if (rewrite === undefined || found.length === 0) return { matches, edits: 0 }
  const edits: Edit[] = found.map((m) => ({
    start: m.range().start.index,
    end: m.range().end.index,
    text: expandTemplate(rewrite, m, source),
  }))
  const { text, applied } = applyEdits(source, edits)
  return text === source ? { matches, edits: 0 } : { matches, next: text, edits: applied }
}

/** The names to report as captures: those the pattern, rule, constraints and template mention. */
export function captureNames(spec: MatcherSpec, rewrite: string | undefined): string[] {
  return metavarNames(JSON.stringify([spec.pattern ?? '', spec.rule ?? {}, spec.constraints ?? {}, spec.utils ?? {}]), rewrite ?? '')
}
