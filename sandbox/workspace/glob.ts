/**
 * Glob patterns, compiled to regular expressions over `/`-separated workspace-relative paths.
 * Supported: `**` (any number of folders, as a whole segment), `*`, `?`, `[abc]` / `[!abc]`, `{a,b}`
 * (nested too). `*` and `?` never cross a `/`; they do match dotfiles.
 */
import { WorkspaceError } from './ops.js'

/** Brace alternatives a single pattern may expand to. */
const MAX_EXPANSIONS = 256

/** `a{b,c{d,e}}f` -> [abf, acdf, acef]. */
export function expandBraces(pattern: string): string[] {
  const open = findBraceOpen(pattern)
  if (open === -1) return [pattern]
  let depth = 0
  const commas: number[] = []
  let close = -1
  for (let i = open; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '\\') i++
    else if (c === '{') depth++
    else if (c === '}' && --depth === 0) {
      close = i
      break
    } else if (c === ',' && depth === 1) commas.push(i)
  }
  if (close === -1 || commas.length === 0) {
    // An unmatched or comma-less brace is literal: escape it and go on.
    return expandBraces(`${pattern.slice(0, open)}\\{${pattern.slice(open + 1)}`)
  }
  const head = pattern.slice(0, open)
  const tail = pattern.slice(close + 1)
  const bounds = [open, ...commas, close]
  const out: string[] = []
  for (let k = 0; k + 1 < bounds.length; k++) {
    const alt = pattern.slice((bounds[k] ?? 0) + 1, bounds[k + 1])
    for (const p of expandBraces(head + alt + tail)) {
      out.push(p)
      if (out.length > MAX_EXPANSIONS) throw new WorkspaceError('E2BIG', `pattern expands to more than ${MAX_EXPANSIONS} alternatives`)
    }
  }
  return out
}

function findBraceOpen(p: string): number {
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '\\') i++
    else if (p[i] === '{') return i
  }
  return -1
}

const MAGIC = /[*?[{]/

/** The leading segments without wildcards: the folder a walk can start from. */
export function staticPrefix(segments: readonly string[]): string[] {
  const out: string[] = []
  for (const s of segments.slice(0, -1)) {
    if (MAGIC.test(s.replace(/\\./g, ''))) break
    out.push(s.replace(/\\(.)/g, '$1'))
  }
  return out
}

function segmentSource(seg: string): string {
  let src = ''
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i] ?? ''
    if (c === '\\' && i + 1 < seg.length) {
      src += escapeRe(seg[++i] ?? '')
    } else if (c === '*') {
      src += '[^/]*'
    } else if (c === '?') {
      src += '[^/]'
    } else if (c === '[') {
      const end = seg.indexOf(']', i + 2)
      if (end === -1) {
        src += '\\['
        continue
      }
      let body = seg.slice(i + 1, end)
      const negate = body.startsWith('!') || body.startsWith('^')
      if (negate) body = body.slice(1)
      src += `[${negate ? '^/' : ''}${body.replace(/[\\\]]/g, '\\$&')}]`
      i = end
    } else {
      src += escapeRe(c)
    }
  }
  return src
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

export interface CompiledGlob {
  /** Workspace-relative folder to walk from ('' for the root). */
  prefix: string
  /** Matches a whole workspace-relative path. */
  regex: RegExp
}

/** One brace-free pattern, already relative (no leading `/`, no `.` or `..` segments). */
export function compileGlob(pattern: string): CompiledGlob {
  const segments = pattern.split('/').filter((s) => s !== '' && s !== '.')
  if (segments.length === 0) throw new WorkspaceError('EIO', 'empty glob pattern')
  let src = '^'
  segments.forEach((seg, i) => {
    const last = i === segments.length - 1
    if (seg === '**') src += last ? '.*' : '(?:[^/]+/)*'
    else src += segmentSource(seg) + (last ? '' : '/')
  })
  return { prefix: staticPrefix(segments).join('/'), regex: new RegExp(`${src}$`) }
}
