/**
 * Programs in the styles models write, for the host-prepare gate's admission property
 * (test/security/host-prepare-gate.test.ts): TypeScript annotations, generics, comparisons in callbacks,
 * regular expressions, template literals, with and without semicolons.
 */
export const MODEL_STYLE: string[] = [
  `const files = await tools.glob({ pattern: 'src/**/*.ts' })
const sizes: Array<{ path: string; lines: number }> = []
for (const f of files) {
  const text = await tools.read_file({ path: f })
  const lines = text.split(/\\r?\\n/).length
  if (lines > 300) sizes.push({ path: f, lines })
}
sizes.sort((a, b) => b.lines - a.lines)
return sizes.slice(0, 10).map((s) => \`\${s.path}: \${s.lines}\`).join('\\n')`,
  `const byExt = new Map<string, number>()
const entries = await tools.list_dir({ path: '.', recursive: true })
entries.forEach((e) => {
  const m = e.name.match(/\\.([a-z0-9]+)$/i)
  const ext = m ? m[1].toLowerCase() : '(none)'
  byExt.set(ext, (byExt.get(ext) ?? 0) + 1)
})
const top = [...byExt.entries()].filter(([, n]) => n >= 2).sort((a, b) => b[1] - a[1])
return Object.fromEntries(top.slice(0, 5))`,
  `interface Issue { number: number; title: string; labels: { name: string }[]; comments: number }
const issues: Issue[] = await tools.github__list_issues({ owner: 'o', repo: 'r', state: 'open' })
const stale = issues.filter((i) => i.comments < 2 && !i.labels.some((l) => l.name === 'bug'))
const results = await Promise.all(stale.map(async (i) => {
  const r = await tools.github__add_issue_comment({ owner: 'o', repo: 'r', issue_number: i.number, body: 'Is this still relevant?' })
  return { n: i.number, ok: !!r }
}))
console.log(\`pinged \${results.filter((r) => r.ok).length} of \${stale.length}\`)
return results`,
  `type Price = { shop: string; currency: string; net: number }
const shops = await tools.list_shops()
const prices: Price[] = []
for (const s of shops) {
  try {
    prices.push(await tools.lookup_price({ shop: s.shop, product: 'laptop' }))
  } catch (e) {
    console.log('skip', s.shop, (e as Error).message)
  }
}
const rates = await tools.lookup_rates({ base: 'USD' })
let best: { shop: string; usd: number } | undefined
for (const p of prices) {
  const usd = p.net / (rates[p.currency] ?? 1)
  if (!best || usd < best.usd) best = { shop: p.shop, usd: Math.round(usd * 100) / 100 }
}
return best ?? 'no prices'`,
  `function chunk<T>(xs: T[], n: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n))
  return out
}
const ids = Array.from({ length: 95 }, (_, i) => \`u\${i + 1}\`)
const users: Record<string, unknown>[] = []
for (const group of chunk(ids, 10)) {
  const batch = await Promise.all(group.map((id) => tools.get_user({ id }).catch(() => null)))
  users.push(...batch.filter((u): u is Record<string, unknown> => u !== null))
}
return users.length`,
  `const text = await tools.read_file({ path: 'CHANGELOG.md' });
const sections = text.split(/^## /m).slice(1);
const parsed = sections.map((s) => {
  const [head, ...body] = s.split('\\n');
  const version = head.match(/\\[?(\\d+\\.\\d+\\.\\d+)\\]?/)?.[1] ?? head.trim();
  const items = body.filter((l) => l.startsWith('- ')).length;
  return { version, items };
});
const big = parsed.filter((p) => p.items > 5 ? true : p.version.startsWith('1.'));
return { total: parsed.length, big: big.map((p) => p.version) };`,
  `const { data } = await tools.http_get({ url: 'https://api.example.com/items?page=1' })
const items = (data as { id: number; price: number; tags?: string[] }[]) ?? []
const cheap = items.filter(({ price, tags = [] }) => price <= 20 && tags.length > 0)
const avg = cheap.length ? cheap.reduce((s, i) => s + i.price, 0) / cheap.length : 0
const label = avg > 10 ? (avg > 15 ? 'high' : 'mid') : 'low'
return { count: cheap.length, avg: Number(avg.toFixed(2)), label }`,
  `async function retry<T>(f: () => Promise<T>, tries = 3): Promise<T> {
  let last: unknown
  for (let i = 0; i < tries; i++) {
    try { return await f() } catch (e) { last = e; await new Promise((r) => setTimeout(r, 100 * 2 ** i)) }
  }
  throw last
}
const pages: string[] = []
for (let p = 1; p <= 3; p++) pages.push(await retry(() => tools.fetch_page({ page: p })))
const words = pages.join(' ').split(/\\s+/).filter((w) => w.length > 3)
const freq = new Map<string, number>()
for (const w of words) freq.set(w, (freq.get(w) ?? 0) + 1)
return [...freq].sort((a, b) => b[1] - a[1]).slice(0, 20)`,
  `const rows = await tools.query({ sql: 'select id, total, created_at from orders' })
const byMonth: Record<string, { n: number; sum: number }> = {}
for (const r of rows as { id: number; total: number; created_at: string }[]) {
  const month = r.created_at.slice(0, 7)
  const b = (byMonth[month] ??= { n: 0, sum: 0 })
  b.n++
  b.sum += r.total
}
const months = Object.keys(byMonth).sort()
const growth = months.slice(1).map((m, i) => {
  const prev = byMonth[months[i]!]!.sum
  return { month: m, pct: prev > 0 ? Math.round(((byMonth[m]!.sum - prev) / prev) * 1000) / 10 : null }
})
return growth`,
  `const pkg = JSON.parse(await tools.read_file({ path: 'package.json' })) as { dependencies?: Record<string, string> }
const deps = Object.entries(pkg.dependencies ?? {})
const outdated: string[] = []
for (const [name, range] of deps) {
  const info = await tools.npm_view({ name })
  const major = Number(range.replace(/^[^\\d]*/, '').split('.')[0])
  const latest = Number(String(info.version).split('.')[0])
  if (major < latest) outdated.push(\`\${name} \${range} -> \${info.version}\`)
}
return outdated.length === 0 ? 'all current' : outdated`,
]
