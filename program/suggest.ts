/** "Did you mean …?" for misspelled tool names and fields: the closest candidates by edit distance. */
export function closestNames(name: string, candidates: readonly string[], max = 3): string[] {
  const scored: { c: string; d: number }[] = []
  const lower = name.toLowerCase()
  for (const c of candidates) {
    const d = editDistance(lower, c.toLowerCase())
    // Substrings count only for names long enough to mean something ("ad" is in too many names).
    const contains = lower.length >= 4 && (c.toLowerCase().includes(lower) || lower.includes(c.toLowerCase()))
    const close = d <= Math.max(2, Math.floor(c.length / 3)) || contains
    if (close) scored.push({ c, d })
  }
  scored.sort((a, b) => a.d - b.d || a.c.localeCompare(b.c))
  return scored.slice(0, max).map((s) => s.c)
}

function editDistance(a: string, b: string): number {
  if (a === b) return 0
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost)
    }
    prev = cur
  }
  return prev[b.length] ?? 0
}
