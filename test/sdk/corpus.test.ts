/**
 * The schema -> TypeScript corpus: every tool of the recorded MCP servers, hand-written OpenAI-style function
 * schemas and zod tools. For each set: the declarations are snapshotted, compile cleanly, and a program that
 * calls every tool with a valid argument object (checked by ajv against the same schema) has no diagnostics.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Ajv } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import type { JsonSchema, ToolDefinition } from '../../vocabulary/types.js'
import { renderDeclarations, typeSchemaOf } from '../../sdk/declarations.js'
import { createTypeChecker } from '../../program/typecheck.js'
import { openAiTools } from './fixtures/openai-tools.js'
import { zodTools } from './fixtures/zod-tools.js'
import { sampleValue } from './sample-value.js'

// A copy of shared/data/mcp-tool-schemas (recorded tools/list answers), so the suite needs nothing outside the repo.
const MCP_DIR = fileURLToPath(new URL('./fixtures/mcp-tool-schemas', import.meta.url))

interface McpTool {
  name: string
  description?: string
  inputSchema: JsonSchema
  outputSchema?: JsonSchema
}

function mcpTools(file: string): ToolDefinition[] {
  const data = JSON.parse(readFileSync(`${MCP_DIR}/${file}`, 'utf8')) as { tools: McpTool[] }
  return data.tools.map((t) => ({
    name: t.name,
    description: t.description ?? '',
    parameters: t.inputSchema,
    ...(t.outputSchema ? { output: t.outputSchema } : {}),
    execute: () => null,
  }))
}

const corpora: [string, ToolDefinition[]][] = [
  ...readdirSync(MCP_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f): [string, ToolDefinition[]] => [`mcp/${f.replace(/\.json$/, '')}`, mcpTools(f)]),
  ['openai', openAiTools],
  ['zod', zodTools],
]

/** ajv for the draft the schema is written in (draft-07 tuples are `items: [...]`). */
function validator(schema: JsonSchema): (value: unknown) => boolean {
  const { $schema: _ignored, ...rest } = schema
  const draft7 = String(_ignored ?? '').includes('draft-07') || JSON.stringify(rest).includes('"items":[')
  const ajv = draft7 ? new Ajv({ strict: false, validateFormats: false }) : new Ajv2020({ strict: false, validateFormats: false })
  const validate = ajv.compile(rest)
  return (value) => validate(value) === true
}

/** A program calling every tool once with a valid argument object, using each result as `unknown`. */
function correctProgram(tools: readonly ToolDefinition[]): string {
  return tools
    .map((t, i) => {
      const args = JSON.stringify(sampleValue(typeSchemaOf(t.parameters, 'input')))
      return `const r${i}: unknown = await tools[${JSON.stringify(t.name)}](${args})`
    })
    .join('\n')
}

describe.each(corpora)('schema corpus: %s', (name, tools) => {
  const text = renderDeclarations(tools)

  it('renders declarations matching the snapshot', async () => {
    await expect(text).toMatchFileSnapshot(`__snapshots__/${name}.d.ts.snap`)
  })

  it('renders declarations that compile without a diagnostic', () => {
    const checker = createTypeChecker()
    checker.setDeclarations(text)
    expect(checker.declarationDiagnostics()).toEqual([])
  })

  it('accepts a program that calls every tool with arguments its schema accepts', () => {
    for (const t of tools) {
      const schema = typeSchemaOf(t.parameters, 'input')
      expect(validator(schema)(sampleValue(schema)), `sample for ${t.name}`).toBe(true)
    }
    const checker = createTypeChecker()
    checker.setDeclarations(text)
    expect(checker.check(correctProgram(tools))).toEqual([])
  })
})
