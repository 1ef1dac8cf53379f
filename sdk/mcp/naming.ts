/**
 * How an MCP tool is named inside codeact. The rule (documented in docs/mcp.md):
 *
 *   1. `SERVER__TOOL`, with every character outside `[A-Za-z0-9_]` (in both parts) replaced by `_`,
 *      and a leading `_` added if the result would start with a digit — so the name is always a valid
 *      TypeScript identifier (`tools.fs__read_file`) and a valid codeact tool name.
 *   2. When two tools end up with the same name (or a name is taken by another tool), each colliding tool
 *      whose original `SERVER` and `TOOL` were not already clean gets `_` + 6 hex digits of
 *      sha256("SERVER/TOOL"); if they all were clean (cannot happen within one server) all get it.
 *   3. A name longer than 64 characters is cut to 57 and gets the same suffix.
 *
 * The suffix depends only on the server and tool names, so a name is stable across restarts as long as the
 * set of colliding tools does not change.
 */
import { createHash } from 'node:crypto'

export interface McpToolRef {
  server: string
  tool: string
}

const MAX = 64

export function sanitize(part: string): string {
  return part.replace(/[^A-Za-z0-9_]/g, '_')
}

export function suffixOf(ref: McpToolRef): string {
  return '_' + createHash('sha256').update(`${ref.server}/${ref.tool}`).digest('hex').slice(0, 6)
}

function baseName(ref: McpToolRef): string {
  const joined = `${sanitize(ref.server)}__${sanitize(ref.tool)}`
  return /^[0-9]/.test(joined) ? `_${joined}` : joined
}

function isClean(ref: McpToolRef): boolean {
  return sanitize(ref.server) === ref.server && sanitize(ref.tool) === ref.tool && !/^[0-9]/.test(ref.server)
}

function withSuffix(name: string, ref: McpToolRef): string {
  const suffix = suffixOf(ref)
  return name.slice(0, MAX - suffix.length) + suffix
}

/**
 * Names for every tool of every server, in one pass so collisions across servers are seen.
 * `taken` holds names of other tools (workspace, `--tools`) that MCP tools must not shadow.
 * Returns the names in the order of `refs`.
 */
export function assignNames(refs: readonly McpToolRef[], taken: ReadonlySet<string> = new Set()): string[] {
  const bases = refs.map(baseName)
  const groups = new Map<string, number[]>()
  bases.forEach((b, i) => {
    groups.set(b, [...(groups.get(b) ?? []), i])
  })
  const names = bases.map((base, i) => {
    const ref = refs[i]!
    const group = groups.get(base)!
    const collides = group.length > 1 || taken.has(base)
    const keepsBase = collides && !taken.has(base) && isClean(ref) && group.filter((j) => isClean(refs[j]!)).length === 1
    if ((collides && !keepsBase) || base.length > MAX) return withSuffix(base, ref)
    return base
  })
  return names
}
