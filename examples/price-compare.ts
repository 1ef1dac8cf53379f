// Which shop sells a laptop cheapest, VAT included, in US dollars?
// Run: npx codeact run examples/price-compare.ts --tools examples/tools.ts
const shops = await tools.list_shops({})
const rates = await tools.lookup_rates({ base: 'USD' })

// Independent lookups overlap.
const quotes = await Promise.all(shops.map(({ shop }) => tools.lookup_price({ shop, product: 'laptop' })))

const inUsd = await Promise.all(
  quotes.map(async (q) => {
    const { gross } = await tools.convert_and_tax({ amount: q.net, currency: q.currency, to: 'USD', rate: 1 / rates[q.currency]! })
    return { shop: q.shop, usd: gross }
  }),
)
inUsd.sort((a, b) => a.usd - b.usd)
for (const q of inUsd) console.log(`${q.shop.padEnd(16)} ${q.usd.toFixed(2)} USD`)
return { cheapest: inUsd[0]!.shop, usd: inUsd[0]!.usd }
