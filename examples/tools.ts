/**
 * Example tools for `codeact run examples/price-compare.ts --tools examples/tools.ts`.
 * A tools module's default export is an array (or a record) of tool definitions.
 */
import { z } from 'zod'
import { defineTool } from 'codeact'

const RATES: Record<string, number> = { USD: 1, EUR: 0.92, GBP: 0.79, JPY: 151.2, CHF: 0.88 }
const SHOPS: Record<string, { currency: string; prices: Record<string, number> }> = {
  'berlin-electro': { currency: 'EUR', prices: { laptop: 1149, phone: 729, headphones: 279 } },
  'london-gadgets': { currency: 'GBP', prices: { laptop: 989, phone: 649, headphones: 229 } },
  'tokyo-denki': { currency: 'JPY', prices: { laptop: 172000, phone: 112000, headphones: 39800 } },
}
const VAT: Record<string, number> = { EUR: 0.19, GBP: 0.2, JPY: 0.1 }

export const listShops = defineTool({
  name: 'list_shops',
  description: 'Lists the shops that can be compared, with the currency each one prices in.',
  parameters: z.object({}),
  output: z.array(z.object({ shop: z.string(), currency: z.string() })),
  execute: () => Object.entries(SHOPS).map(([shop, s]) => ({ shop, currency: s.currency })),
})

export const lookupPrice = defineTool({
  name: 'lookup_price',
  description: "A shop's net price (before VAT) for a product, in the shop's currency.",
  parameters: z.object({ shop: z.string().describe('shop id from list_shops'), product: z.enum(['laptop', 'phone', 'headphones']) }),
  output: z.object({ shop: z.string(), currency: z.string(), net: z.number() }),
  execute: async ({ shop, product }) => {
    const s = SHOPS[shop]
    if (!s) throw Object.assign(new Error(`no shop "${shop}"`), { code: 'ENOENT' })
    await new Promise((r) => setTimeout(r, 20)) // a remote lookup takes a moment
    return { shop, currency: s.currency, net: s.prices[product]! }
  },
})

export const lookupRates = defineTool({
  name: 'lookup_rates',
  description: 'Exchange rates: how many units of each currency one unit of `base` buys.',
  parameters: z.object({ base: z.string().length(3) }),
  output: z.record(z.string(), z.number()),
  execute: ({ base }) => {
    const b = RATES[base]
    if (!b) throw Object.assign(new Error(`unknown currency ${base}`), { code: 'EINVAL' })
    return Object.fromEntries(Object.entries(RATES).map(([c, r]) => [c, r / b]))
  },
})

export const convertAndTax = defineTool({
  name: 'convert_and_tax',
  description: "Adds the shop country's VAT to a net amount and converts it into `to` using the given rate.",
  parameters: z.object({ amount: z.number(), currency: z.string().length(3), to: z.string().length(3), rate: z.number().positive() }),
  output: z.object({ gross: z.number(), currency: z.string() }),
  execute: ({ amount, currency, to, rate }) => ({
    gross: Math.round(amount * (1 + (VAT[currency] ?? 0)) * rate * 100) / 100,
    currency: to,
  }),
})

export default [listShops, lookupPrice, lookupRates, convertAndTax]
