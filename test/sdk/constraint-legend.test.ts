/**
 * Constraints are checked as the SDK text shows them, also where a field's doc is said once for its family
 * (the legend above `interface Tools`): a legend line with constraints is true of every field of that name in
 * the family, so a literal against it blocks, and a same-named field the legend does not speak for never does.
 */
import { describe, expect, it } from 'vitest'
import { renderDeclarations } from '../../sdk/declarations.js'
import { createTypeChecker } from '../../program/typecheck.js'
import type { ToolDefinition } from '../../vocabulary/types.js'

const paged = (name: string, perPage: object): ToolDefinition => ({
  name,
  description: `Lists ${name}.`,
  parameters: { type: 'object', properties: { per_page: perPage }, additionalProperties: false },
  execute: () => [],
})
const bounded = { type: 'integer', minimum: 1, maximum: 100 }

describe('constraints said once for a family', () => {
  it('a literal past the legend’s @maximum blocks, for every tool of the family', () => {
    const sdk = renderDeclarations([paged('gh__issues', bounded), paged('gh__pulls', bounded), paged('gh__repos', bounded)])
    expect(sdk).toMatch(/^\/\/ {3}per_page: @integer @minimum 1 @maximum 100$/m)
    const checker = createTypeChecker()
    checker.setDeclarations(sdk)
    const [d] = checker.check('return await tools.gh__pulls({ per_page: 500 })')
    expect(d).toMatchObject({ severity: 'error', rule: 'constraint' })
    expect(d?.message).toMatch(/`per_page` must be ≤ 100 \(@maximum\); it is 500/)
    expect(checker.check('return await tools.gh__issues({ per_page: 100 })')).toEqual([])
  })

  it('a family where one field of the name is unbounded keeps the bounds on the fields that have them', () => {
    const sdk = renderDeclarations([paged('gh__issues', bounded), paged('gh__pulls', bounded), paged('gh__free', { type: 'number' })])
    expect(sdk).not.toMatch(/^\/\/ {3}per_page:/m)
    const checker = createTypeChecker()
    checker.setDeclarations(sdk)
    expect(checker.check('return await tools.gh__free({ per_page: 500 })').filter((d) => d.severity === 'error')).toEqual([])
    expect(checker.check('return await tools.gh__issues({ per_page: 500 })').map((d) => d.rule)).toEqual(['constraint'])
  })
})
