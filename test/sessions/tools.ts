/**
 * The tools of the session tests: the kinds a conversation calls (orders, weather, a paged API, search, an
 * e-mail with a side effect), each counting its executions so a test can say "no tool ran twice".
 */
import { z } from 'zod'
import { defineTool } from '../../vocabulary/define-tool.js'
import type { AnyToolDefinition } from '../../vocabulary/types.js'

export const ORDERS = [
  { id: 'o1', customer: 'acme', amount: 120, status: 'paid' },
  { id: 'o2', customer: 'globex', amount: 80, status: 'refunded' },
  { id: 'o3', customer: 'acme', amount: 40, status: 'paid' },
  { id: 'o4', customer: 'initech', amount: 300, status: 'paid' },
  { id: 'o5', customer: 'globex', amount: 55, status: 'pending' },
] as const

export interface CountedTools {
  tools: AnyToolDefinition[]
  /** Executions per tool name (a refused or replayed call is not an execution). */
  counts: Map<string, number>
  /** Total executions of every tool. */
  total(): number
}

export function sessionTools(): CountedTools {
  const counts = new Map<string, number>()
  const ran = (name: string) => void counts.set(name, (counts.get(name) ?? 0) + 1)
  const tools: AnyToolDefinition[] = [
    defineTool({
      name: 'list_orders',
      description: 'Orders placed since a date (ISO), newest last.',
      parameters: z.object({ since: z.string().optional() }),
      output: z.array(
        z.object({ id: z.string(), customer: z.string(), amount: z.number(), status: z.enum(['paid', 'refunded', 'pending']) }),
      ),
      execute: () => {
        ran('list_orders')
        return ORDERS.map((o) => ({ ...o }))
      },
    }),
    defineTool({
      name: 'get_weather',
      description: 'Current weather for a city.',
      parameters: z.object({ city: z.string().min(1) }),
      output: z.object({ city: z.string(), tempC: z.number(), conditions: z.string() }),
      execute: ({ city }) => {
        ran('get_weather')
        return { city, tempC: city === 'Oslo' ? -3 : city.length * 2, conditions: city === 'Oslo' ? 'snow' : 'sunny' }
      },
    }),
    defineTool({
      name: 'fetch_page',
      description: 'One page of the product API: its items and the cursor of the next page.',
      parameters: z.object({ cursor: z.string().optional() }),
      output: z.object({ items: z.array(z.object({ sku: z.string(), price: z.number() })), next: z.string().nullable() }),
      execute: ({ cursor }) => {
        ran('fetch_page')
        if (cursor === undefined)
          return {
            items: [
              { sku: 'A-1', price: 10 },
              { sku: 'A-2', price: 25 },
            ],
            next: 'p2',
          }
        return { items: [{ sku: 'B-1', price: 7 }], next: null }
      },
    }),
    defineTool({
      name: 'search_docs',
      description: 'Search the documentation; hits with a score between 0 and 1.',
      parameters: z.object({ query: z.string() }),
      output: z.object({ hits: z.array(z.object({ title: z.string(), score: z.number() })) }),
      execute: ({ query }) => {
        ran('search_docs')
        return { hits: [1, 2, 3].map((i) => ({ title: `${query} ${i}`, score: 1 - i / 10 })) }
      },
    }),
    defineTool({
      name: 'get_user',
      description: 'A user record by id.',
      parameters: z.object({ id: z.string() }),
      output: z.object({ id: z.string(), name: z.string(), email: z.string() }),
      execute: ({ id }) => {
        ran('get_user')
        if (id === 'missing') throw Object.assign(new Error('no such user'), { code: 'ENOENT' })
        return { id, name: id === 'u1' ? 'Ana' : 'Bo', email: `${id}@example.com` }
      },
    }),
    defineTool({
      name: 'send_email',
      description: 'Send one e-mail (a side effect: never repeat it by accident).',
      parameters: z.object({ to: z.string(), subject: z.string() }),
      output: z.object({ sent: z.boolean(), id: z.number() }),
      execute: () => {
        ran('send_email')
        return { sent: true, id: counts.get('send_email')! }
      },
    }),
    defineTool({
      name: 'sleep',
      description: 'Waits `ms` milliseconds (or until cancelled) and returns "slept".',
      parameters: z.object({ ms: z.number().int().min(0) }),
      execute: ({ ms }, ctx) => {
        ran('sleep')
        return new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => resolve('slept'), ms)
          ctx.signal?.addEventListener('abort', () => {
            clearTimeout(timer)
            reject(Object.assign(new Error('sleep cancelled'), { code: 'ECANCELED' }))
          })
        })
      },
    }),
  ]
  return { tools, counts, total: () => [...counts.values()].reduce((a, b) => a + b, 0) }
}
