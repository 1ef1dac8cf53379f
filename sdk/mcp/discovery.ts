/**
 * Discovery for large registries: instead of embedding every declaration in `run_code`'s description, the
 * exported server lists a short index and lets the client fetch declarations on demand with
 * `search_tools({ query })` and `describe_tool({ name })`. The declarations returned are cut from the very
 * SDK text the type checker uses (parsed with the TypeScript compiler), so they include result types.
 */
import type { JsonSchema } from '../../vocabulary/types.js'
import { USAGE_NOTE } from '../declarations.js'
import { closestNames } from '../../program/suggest.js'

export const DISCOVERY_LIMITS = { maxTools: 40, maxDeclarationBytes: 16 * 1024 }

export const SEARCH_TOOLS = 'search_tools'
export const DESCRIBE_TOOL = 'describe_tool'

export const SEARCH_TOOLS_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'Words describing what you need, e.g. "read file" or "create issue".' },
    limit: { type: 'integer', minimum: 1, maximum: 25, description: 'At most this many tools (default 10).' },
  },
  required: ['query'],
  additionalProperties: false,
}

export const DESCRIBE_TOOL_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { name: { type: 'string', description: 'The tool name, as in `tools.<name>`.' } },
  required: ['name'],
  additionalProperties: false,
}

export function needsDiscovery(toolCount: number, declarations: string): boolean {
  return toolCount > DISCOVERY_LIMITS.maxTools || Buffer.byteLength(declarations) > DISCOVERY_LIMITS.maxDeclarationBytes
}

interface Member {
  name: string
  /** The member's text, with its doc comment. */
  text: string
  /** Lower-cased name and doc, for search. */
  haystack: string
}

interface ParsedSdk {
  members: Map<string, Member>
  /** Named types declared before `interface Tools` (recursive schemas), by name. */
  aliases: Map<string, string>
}

let cache: { source: string; parsed: ParsedSdk } | undefined

async function parse(declarations: string): Promise<ParsedSdk> {
  if (cache?.source === declarations) return cache.parsed
  const ts = (await import('typescript')).default
  const sf = ts.createSourceFile('sdk.d.ts', declarations, ts.ScriptTarget.ES2022, true)
  const members = new Map<string, Member>()
  const aliases = new Map<string, string>()
  for (const st of sf.statements) {
    if (ts.isInterfaceDeclaration(st) && st.name.text === 'Tools') {
      for (const m of st.members) {
        if (!m.name) continue
        const name = ts.isStringLiteral(m.name) || ts.isIdentifier(m.name) ? m.name.text : m.name.getText(sf)
        const text = declarations.slice(m.getFullStart(), m.end).replace(/^\n+/, '')
        members.set(name, { name, text, haystack: `${name} ${text}`.toLowerCase() })
      }
    } else if ((ts.isTypeAliasDeclaration(st) || ts.isInterfaceDeclaration(st)) && st.getFullText(sf).trim()) {
      aliases.set(st.name.text, declarations.slice(st.getFullStart(), st.end).trim())
    }
  }
  const parsed = { members, aliases }
  cache = { source: declarations, parsed }
  return parsed
}

/** `interface Tools { … }` for the given members, preceded by the named types they use. */
function render(sdk: ParsedSdk, members: readonly Member[]): string {
  const needed = new Set<string>()
  let frontier = members.map((m) => m.text)
  while (frontier.length) {
    const next: string[] = []
    for (const [name, text] of sdk.aliases) {
      if (!needed.has(name) && frontier.some((t) => new RegExp(`\\b${name}\\b`).test(t))) {
        needed.add(name)
        next.push(text)
      }
    }
    frontier = next
  }
  const head = [...needed].map((n) => sdk.aliases.get(n)!).join('\n')
  return `${head ? head + '\n' : ''}interface Tools {\n${members.map((m) => m.text).join('\n')}\n}`
}

export async function describeTool(
  declarations: string,
  name: string,
): Promise<{ ok: true; text: string } | { ok: false; message: string }> {
  const sdk = await parse(declarations)
  const member = sdk.members.get(name)
  if (member) return { ok: true, text: render(sdk, [member]) }
  const near = closestNames(name, [...sdk.members.keys()])
  return {
    ok: false,
    message: `ENOSYS: no tool named "${name}"${near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(' or ')}?` : '; use search_tools to find one'}`,
  }
}

export async function searchTools(declarations: string, query: string, limit = 10): Promise<string> {
  const sdk = await parse(declarations)
  const words = query
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1)
  const whole = query.toLowerCase().trim()
  const scored = [...sdk.members.values()]
    .map((m) => {
      const nameLower = m.name.toLowerCase()
      const nameWords = nameLower.split(/[^a-z0-9]+/)
      // Whole name words count most, then parts of the name, then the docs.
      let score = whole && nameLower.includes(whole.replace(/\s+/g, '_')) ? 10 : 0
      for (const w of words) {
        if (nameWords.includes(w)) score += 4
        else if (nameLower.includes(w)) score += 2
        else if (m.haystack.includes(w)) score += 1
      }
      return { m, score }
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || (a.m.name < b.m.name ? -1 : 1))
    .slice(0, Math.max(1, Math.min(25, limit)))
  if (!scored.length)
    return `No tool matches "${query}". Tool groups: ${groupsOf([...sdk.members.keys()])
      .map(([g, n]) => `${g} (${n.length})`)
      .join(', ')}.`
  return `${scored.length} tool(s) matching "${query}":\n\n\`\`\`ts\n${render(
    sdk,
    scored.map((s) => s.m),
  )}\n\`\`\``
}

/** `run_code`'s description when the SDK is too large to embed: usage, limits and a short index. */
export function discoveryDescription(names: readonly string[], limits: { timeoutMs: number; memoryMb: number }, budget = 3_000): string {
  const lines = groupsOf(names).map(([group, members]) => `- ${group} (${members.length}): ${members.join(', ')}`)
  let index = lines.join('\n')
  if (index.length > budget) {
    index = groupsOf(names)
      .map(([group, members]) => `- ${group} (${members.length}): ${members.slice(0, 4).join(', ')}${members.length > 4 ? ', …' : ''}`)
      .join('\n')
    if (index.length > budget) index = index.slice(0, budget).replace(/\n[^\n]*$/, '\n- …')
  }
  return [
    'Run a TypeScript program that calls the tools, and get back what it printed and returned.',
    'Write one program for a whole multi-step task instead of many single tool calls: loop, filter, and combine results in code, and return only what matters.',
    `Limits: ${Math.round(limits.timeoutMs / 1000)} s, ${limits.memoryMb} MB; no network, no file system, no timers or Node APIs except through tools.`,
    `There are ${names.length} tools, too many to list with their types. Before writing a program, call \`${SEARCH_TOOLS}({ query })\` or \`${DESCRIBE_TOOL}({ name })\` to get the TypeScript declarations of the tools you need. Type errors are reported before anything runs.`,
    '',
    USAGE_NOTE,
    '',
    `Tools by group (a name is its group's prefix plus the name${names[0] ? `, e.g. \`tools.${[...names].sort()[0]}\`` : ''}; "other" have no prefix):`,
    index,
  ].join('\n')
}

/** Groups names by the part before `__` (an MCP server or a prefix), else "other". */
function groupsOf(names: readonly string[]): [string, string[]][] {
  const groups = new Map<string, string[]>()
  for (const n of [...names].sort()) {
    const cut = n.indexOf('__')
    const [group, rest] = cut > 0 ? [n.slice(0, cut + 2), n.slice(cut + 2)] : ['other', n]
    groups.set(group, [...(groups.get(group) ?? []), rest])
  }
  return [...groups]
}
