/**
 * The corpus's SDK: the 89 recorded MCP tools (real schemas, named `server__tool` as the MCP import names
 * them) with canned answers, a few tools of the kinds harnesses register (enum parameters, results with and
 * without an `output` schema), and — through the runtime's `workspace` option — the workspace tools.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { defineTool } from '../../vocabulary/define-tool.js'
import type { AnyToolDefinition, ToolDefinition } from '../../vocabulary/types.js'
import { recordedMcpTools } from '../sdk/mcp-tools.js'

const issues = [
  { number: 7, title: 'Crash on empty input', state: 'open', labels: [{ name: 'bug' }], user: { login: 'ana' }, comments: 3 },
  { number: 9, title: 'Add dark mode', state: 'open', labels: [{ name: 'feature' }], user: { login: 'bo' }, comments: 0 },
  { number: 12, title: 'Typo in README', state: 'closed', labels: [], user: { login: 'ana' }, comments: 1 },
]

/** Canned answers for the recorded tools a program is likely to call; any other returns `{ ok: true }`. */
const answers: Record<string, (args: Record<string, unknown>) => unknown> = {
  github__list_issues: (a) => issues.filter((i) => a.state === undefined || a.state === 'all' || i.state === a.state),
  github__get_issue: (a) => {
    const found = issues.find((i) => i.number === a.issue_number)
    if (!found) throw Object.assign(new Error(`issue ${String(a.issue_number)} not found`), { code: 'ENOENT' })
    return { ...found, body: 'Steps to reproduce: run it.' }
  },
  github__create_issue: (a) => ({ number: 13, title: a.title, html_url: 'https://github.com/o/r/issues/13' }),
  github__add_issue_comment: (a) => ({ id: 501, body: a.body }),
  github__search_repositories: () => ({
    total_count: 2,
    items: [
      { full_name: 'o/alpha', stargazers_count: 120 },
      { full_name: 'o/beta', stargazers_count: 45 },
    ],
  }),
  slack__slack_list_channels: () => ({
    ok: true,
    channels: [
      { id: 'C1', name: 'general', num_members: 40 },
      { id: 'C2', name: 'random', num_members: 12 },
    ],
  }),
  slack__slack_post_message: (a) => ({ ok: true, channel: a.channel_id, ts: '1700000000.000100' }),
  memory__read_graph: () => ({ entities: [{ name: 'Ana', entityType: 'person', observations: ['likes tea'] }], relations: [] }),
  memory__create_entities: (a) => a.entities,
  brave_search__brave_web_search: (a) =>
    `Title: Result for ${String(a.query)}\nURL: https://example.com/1\n\nTitle: Another\nURL: https://example.com/2`,
  google_maps__maps_geocode: () => ({ location: { lat: 52.52, lng: 13.405 }, formatted_address: 'Berlin, Germany' }),
}

function mcpTools(): ToolDefinition[] {
  return recordedMcpTools().map((t) => ({
    ...t,
    execute: (args: Record<string, unknown>) => (answers[t.name] ?? (() => ({ ok: true })))(args),
  }))
}

const RATES: Record<string, number> = { US: 1, DE: 0.92, FR: 0.92, JP: 151.2 }

/** Tools of the kinds harnesses register by hand. */
function ownTools(): AnyToolDefinition[] {
  return [
    defineTool({
      name: 'lookup_rates',
      description: 'Exchange rate of a country’s currency against USD.',
      parameters: z.object({ country: z.enum(['US', 'DE', 'FR', 'JP']) }),
      execute: ({ country }) => ({ country, rate: RATES[country] }),
    }),
    defineTool({
      name: 'get_user',
      description: 'A user record by id.',
      parameters: z.object({ id: z.string() }),
      execute: ({ id }) => {
        if (id === 'missing') throw Object.assign(new Error('no such user'), { code: 'ENOENT' })
        return { id, name: id === 'u1' ? 'Ana' : 'Bo', email: `${id}@example.com`, tags: ['admin'] }
      },
    }),
    defineTool({
      name: 'list_users',
      description: 'All users.',
      parameters: z.object({}),
      execute: () => [
        { id: 'u1', name: 'Ana', active: true },
        { id: 'u2', name: 'Bo', active: false },
        { id: 'u3', name: 'Cy', active: true },
      ],
    }),
    defineTool({
      name: 'get_weather',
      description: 'Current weather for a city.',
      parameters: z.object({ city: z.string().min(1), units: z.enum(['metric', 'imperial']).optional() }),
      output: z.object({ city: z.string(), tempC: z.number(), conditions: z.string() }),
      execute: ({ city }) => ({ city, tempC: city === 'Oslo' ? -3 : 21, conditions: city === 'Oslo' ? 'snow' : 'sunny' }),
    }),
    defineTool({
      name: 'send_email',
      description: 'Send one e-mail.',
      parameters: z.object({ to: z.string(), subject: z.string(), body: z.string().optional() }),
      execute: async ({ to }) => {
        await new Promise((r) => setTimeout(r, 20))
        return { sent: true, to }
      },
    }),
    defineTool({
      name: 'search_docs',
      description: 'Search the documentation.',
      parameters: z.object({ query: z.string(), limit: z.number().int().min(1).max(50).optional() }),
      execute: ({ query, limit }) =>
        Array.from({ length: Math.min(limit ?? 3, 3) }, (_, i) => ({ title: `${query} ${i + 1}`, score: 1 - i / 10 })),
    }),
    {
      name: 'fetch-page',
      description: 'Fetch a web page as text (a hyphenated name, as MCP servers use).',
      parameters: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'], additionalProperties: false },
      execute: (args: { url: string }) => `<html>${args.url}</html>`,
    },
  ]
}

export function corpusTools(): AnyToolDefinition[] {
  return [...mcpTools(), ...ownTools()]
}

/** A fresh workspace with a few files a batch job would touch. */
export function corpusWorkspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'codeact-corpus-'))
  mkdirSync(join(root, 'src'), { recursive: true })
  writeFileSync(join(root, 'src', 'a.ts'), "import { x } from './old'\nexport const a = x + 1\n")
  writeFileSync(join(root, 'src', 'b.ts'), "import { y } from './old'\nexport const b = y * 2\n")
  writeFileSync(join(root, 'src', 'c.ts'), 'export const c = 3\n')
  writeFileSync(join(root, 'README.md'), '# Demo\n\nTODO: write docs\nTODO: add tests\n')
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'demo', version: '1.2.3', dependencies: { zod: '^4.0.0' } }, null, 2))
  return root
}
