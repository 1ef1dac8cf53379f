/**
 * PLACEHOLDER (branch hostprep): the gate's helper writes the measured gate in this file; at merge theirs
 * replaces this one. Until then, conservatively: at most 1 KB, no `<` and no `?` (Babel's TypeScript plugin
 * re-parses a span after a failed try at those) and brackets at most 3 deep (the exponential families nest
 * tries inside tries: 12–16 deep took seconds), whatever is in strings or comments.
 */
const MAX_CHARS = 1024
const MAX_DEPTH = 3

export function hostPrepareAdmits(source: string): boolean {
  if (source.length > MAX_CHARS || source.includes('<') || source.includes('?')) return false
  let depth = 0
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i)
    if (c === 40 || c === 91 || c === 123)
      depth++ // ( [ {
    else if (c === 41 || c === 93 || c === 125) depth-- // ) ] }
    if (depth > MAX_DEPTH) return false
  }
  return true
}
