import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { ToolDefinition } from '../../vocabulary/types.js'
import { renderDeclarations, renderToolsInterface, RUNTIME_DECLARATIONS, USAGE_NOTE } from '../../sdk/declarations.js'
import { openAiTools } from './fixtures/openai-tools.js'
import { zodTools } from './fixtures/zod-tools.js'

const tool = (name: string, parameters: ToolDefinition['parameters'], extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: `The ${name} tool.`,
  parameters,
  execute: () => null,
  ...extra,
})

describe('renderDeclarations', () => {
  it('is byte-identical for the same registry in any order', () => {
    const tools = [...zodTools, ...openAiTools]
    const reversed = [...tools].reverse()
    const shuffled = [...tools].sort((a, b) => (a.description.length % 7) - (b.description.length % 7))
    expect(renderDeclarations(reversed)).toBe(renderDeclarations(tools))
    expect(renderDeclarations(shuffled)).toBe(renderDeclarations(tools))
  })

  it('starts with the usage note and ends with tools, ToolCallError and console', () => {
    const text = renderDeclarations([tool('ping', { type: 'object' })])
    expect(text.startsWith(`${USAGE_NOTE}\n`)).toBe(true)
    expect(text.endsWith(`${RUNTIME_DECLARATIONS}\n`)).toBe(true)
    expect(USAGE_NOTE.split('\n')).toHaveLength(4)
  })

  it('sorts methods by name in code-unit order, not by locale', () => {
    const text = renderToolsInterface([tool('b', {}), tool('B', {}), tool('a_x', {}), tool('a-x', {})])
    const names = [...text.matchAll(/^ {2}("?[\w-]+"?)\(/gm)].map((m) => m[1])
    expect(names).toEqual(['B', '"a-x"', 'a_x', 'b'])
  })

  it('writes a method per tool with its description as JSDoc and its output as the return type', () => {
    const text = renderToolsInterface([
      tool('read', z.object({ path: z.string() }), { description: 'Read a file.', output: z.object({ text: z.string() }) }),
    ])
    expect(text).toBe(
      ['interface Tools {', '  /** Read a file. */', '  read(args: { path: string }): Promise<{ text: string }>', '}'].join('\n'),
    )
  })

  it('returns Promise<unknown> without an output schema and keeps multi-line descriptions', () => {
    const text = renderToolsInterface([
      tool(
        'run',
        { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'], additionalProperties: false },
        { description: 'Run it.\n\nExit codes are not errors.' },
      ),
    ])
    expect(text).toBe(
      [
        'interface Tools {',
        '  /**',
        '   * Run it.',
        '   *',
        '   * Exit codes are not errors.',
        '   */',
        '  run(args: { cmd: string }): Promise<unknown>',
        '}',
      ].join('\n'),
    )
  })

  it('can type results without an output schema as any instead', () => {
    expect(renderToolsInterface([tool('run', {})], { untypedResult: 'any' })).toContain('run(args?: unknown): Promise<any>')
  })

  it('quotes tool names that are not identifiers', () => {
    expect(renderToolsInterface([tool('my-tool', {})])).toContain('  "my-tool"(args?: unknown): Promise<unknown>')
  })

  it('lets a program omit the arguments of a tool with no required field, and only then', () => {
    const text = renderToolsInterface([
      tool('none', { type: 'object', properties: {}, additionalProperties: false }),
      tool('some', { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }),
      tool('needs', { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false }),
    ])
    expect(text).toContain('needs(args: { a: string })')
    expect(text).toContain('none(args?: Record<string, never>)')
    expect(text).toContain('some(args?: { a?: string })')
  })

  it('declares named types for recursive schemas once, above the interface, with unique names', () => {
    const node = { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#' } } }, additionalProperties: false }
    const text = renderToolsInterface([tool('tree', node), tool('Tree', node)])
    expect(text.split('\n').slice(0, 2)).toEqual(['type TreeArgs = { kids?: TreeArgs[] }', 'type TreeArgs2 = { kids?: TreeArgs2[] }'])
  })
})
