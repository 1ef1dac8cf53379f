/**
 * The suite must fail when a backend breaks a promise: `breakerSuite(base, options)` runs, for each
 * promise whose breaker wraps `base`, that promise's check against the broken backend and expects it to
 * report something. Called by test/contract/breakers.test.ts (and its Docker twin for Docker's own).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BREAKERS, type Breaker } from './breakers.js'
import { caseNamed } from './cases.js'
import { bounds, type SeamContext } from './context.js'
import { openContext, type SeamOptions } from './suite.js'

export function breakerSuite(base: Breaker['base'], options: Omit<SeamOptions, 'skip'>): void {
  const mine = Object.entries(BREAKERS).filter(([, b]) => b.base === base)
  for (const [name, breaker] of mine) {
    describe(`broken ${base} backend: ${breaker.what}`, () => {
      let opened: { ctx: SeamContext; close(): Promise<void> }
      // What the broken backends wrap, closed at the end whatever the break did to close().
      const wrapped: { close(): Promise<void> }[] = []
      const broken = (make: () => ReturnType<SeamOptions['make']>) => () => {
        const real = make()
        wrapped.push(real)
        return breaker.wrap(real)
      }
      beforeAll(async () => {
        // A break that hangs is certain here: a few seconds without an answer are enough to call it one.
        bounds.hangMs = breaker.hangs ? 5_000 : 120_000
        await options.setup?.()
        opened = await openContext(
          { ...options, make: (ws) => broken(() => options.make(ws))(), unstartable: broken(options.unstartable) },
          `broken-${base}`,
        )
      }, 300_000)
      afterAll(async () => {
        await opened?.close().catch(() => {})
        for (const real of wrapped) await real.close()
      })
      it(`the check "${name}" reports it`, async () => {
        const problems = await caseNamed(name).check(opened.ctx)
        console.info(`[broken ${base}] ${name}:\n  ${problems.join('\n  ')}`)
        expect(problems).not.toEqual([])
      }, 300_000)
    })
  }
}
