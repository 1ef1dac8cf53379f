/**
 * The SDK text a model reads (issue 11 req. 6): the constraints the validator enforces as JSDoc tags, what the
 * sandbox lacks said once, repeated field docs said once per server, and on the 89 real MCP tools at most
 * 0.70 of the bytes of the same tools as function-calling JSON.
 */
import { describe, expect, it } from 'vitest'
import { renderDeclarations } from '../../sdk/declarations.js'
import { createTypeChecker } from '../../program/typecheck.js'
import { functionCallingJson, recordedMcpTools } from './mcp-tools.js'

const tools = recordedMcpTools()
const text = renderDeclarations(tools)
const count = (needle: string) => text.split(needle).length - 1

describe('SDK text of the 89 recorded MCP tools', () => {
  it('is at most 0.70 of the bytes of the same tools as function-calling JSON', () => {
    expect(tools).toHaveLength(89)
    const ratio = Buffer.byteLength(text) / Buffer.byteLength(functionCallingJson(tools))
    expect(ratio).toBeLessThanOrEqual(0.7)
  })

  it('shows the bounds the validator enforces, where the schema has them', () => {
    // github's search tools: per_page is 1..100, page at least 1.
    expect(text).toMatch(/\/\*\* @minimum 1 @maximum 100 \*\/ per_page\?: number/)
    expect(text).toContain('@integer')
  })

  it('says once what the sandbox lacks, and each repeated field doc once per server', () => {
    expect(count('No network, files, modules or host')).toBe(1)
    expect(count('Repository owner (username or organization)')).toBe(1)
    expect(count('Only works within allowed directories.')).toBe(1)
    expect(text).toMatch(/^\/\/ github__\* tools:\n(\/\/ {3}.+\n)*\/\/ {3}owner: Repository owner \(username or organization\)$/m)
  })

  it('still compiles, and a program against it is checked', () => {
    const checker = createTypeChecker()
    checker.setDeclarations(text)
    expect(checker.declarationDiagnostics()).toEqual([])
    expect(
      checker
        .check("const issues = await tools.github__list_issues({ owner: 'o', repo: 'r', state: 'open' })\nreturn issues")
        .filter((d) => d.severity === 'error'),
    ).toEqual([])
    expect(checker.check("await tools.github__list_issues({ owner: 'o' })").filter((d) => d.severity === 'error')).toHaveLength(1)
  })
})
