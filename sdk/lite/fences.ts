/**
 * Markdown fences, as sdk/program-text.ts strips them (a copy: that file loads TypeScript). A model often
 * answers in markdown: keep the code of every fenced block (ts, js or unlabelled) and blank every other line,
 * so line numbers stay the model's own.
 */
export function stripFences(text: string): string {
  const lines = text.split('\n')
  // Backtick fences only: a line like `~~~x` is valid JavaScript (three bitwise NOTs).
  const fence = /^\s{0,3}(```+)\s*([\w+-]*)\s*$/
  if (!lines.some((l) => fence.test(l))) return text
  const codeLangs = new Set(['', 'ts', 'typescript', 'js', 'javascript', 'tsx', 'jsx', 'mjs', 'cjs', 'mts'])
  const out: string[] = []
  let inside: { marker: string; keep: boolean } | undefined
  let sawBlock = false
  for (const line of lines) {
    const m = fence.exec(line)
    if (!inside && m) {
      inside = { marker: m[1]!, keep: codeLangs.has(m[2]!.toLowerCase()) }
      sawBlock = true
      out.push('')
    } else if (inside && m && m[1]!.startsWith(inside.marker[0]!) && m[1]!.length >= inside.marker.length && m[2] === '') {
      inside = undefined
      out.push('')
    } else out.push(inside?.keep ? line : '')
  }
  // An opening fence with no closing one: the model was cut off; keep what followed the fence.
  if (!sawBlock) return text
  return out.join('\n')
}
