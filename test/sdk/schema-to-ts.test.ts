import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { typeSchemaOf } from '../../sdk/declarations.js'
import { schemaToTs } from '../../sdk/schema-to-ts.js'

const ts = (schema: unknown) => schemaToTs(schema).text

describe('schemaToTs: scalars and literals', () => {
  it('maps JSON types to TypeScript types; integer is number', () => {
    expect(ts({ type: 'string' })).toBe('string')
    expect(ts({ type: 'integer' })).toBe('number')
    expect(ts({ type: 'number' })).toBe('number')
    expect(ts({ type: 'boolean' })).toBe('boolean')
    expect(ts({ type: 'null' })).toBe('null')
  })

  it('turns enum and const into literal unions', () => {
    expect(ts({ type: 'string', enum: ['a', 'b c', 'it"s'] })).toBe('"a" | "b c" | "it\\"s"')
    expect(ts({ enum: [1, -2.5, true, null] })).toBe('1 | -2.5 | true | null')
    expect(ts({ const: 'fixed' })).toBe('"fixed"')
  })

  it('drops enum values the stated type excludes', () => {
    expect(ts({ type: 'string', enum: ['a', 1] })).toBe('"a"')
  })

  it('says unknown, not something wrong, for object literals in enum or const', () => {
    expect(ts({ enum: ['a', { b: 1 }] })).toBe('unknown')
    expect(ts({ const: [1, 2] })).toBe('unknown')
  })

  it('makes nullable types from type lists and from OpenAPI nullable', () => {
    expect(ts({ type: ['string', 'null'] })).toBe('string | null')
    expect(ts({ type: 'integer', nullable: true })).toBe('number | null')
  })

  it('renders an empty schema and `true` as unknown, `false` as never', () => {
    expect(ts({})).toBe('unknown')
    expect(ts(true)).toBe('unknown')
    expect(ts(false)).toBe('never')
  })
})

describe('schemaToTs: objects', () => {
  it('marks properties not in `required` optional and keeps a closed object closed', () => {
    const schema = {
      type: 'object',
      properties: { path: { type: 'string' }, limit: { type: 'number' } },
      required: ['path'],
      additionalProperties: false,
    }
    expect(ts(schema)).toBe('{ path: string; limit?: number }')
  })

  it('gives an open object with known properties an index signature of unknown', () => {
    expect(ts({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] })).toBe('{ a: string; [k: string]: unknown }')
  })

  it('renders additionalProperties schemas as records, widened to admit the known properties', () => {
    expect(ts({ type: 'object', additionalProperties: { type: 'number' } })).toBe('{ [k: string]: number }')
    expect(
      ts({ type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: { type: 'number' } }),
    ).toBe('{ name: string; [k: string]: number | string }')
  })

  it('shows every constraint the validator enforces as a compact JSDoc tag', () => {
    const schema = {
      type: 'object',
      properties: {
        limit: { type: 'integer', minimum: 1, maximum: 100 },
        ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, multipleOf: 0.5 },
        code: { type: 'string', minLength: 2, maxLength: 2, pattern: '^[A-Z]{2}$' },
        email: { type: 'string', format: 'email' },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 5, uniqueItems: true },
        count: { type: 'integer', description: 'Number of results (1-20, default 5)', default: 5 },
      },
      additionalProperties: false,
    }
    expect(ts(schema).split('\n')).toEqual([
      '{',
      '  /** @integer @minimum 1 @maximum 100 */ limit?: number',
      '  /** @exclusiveMinimum 0 @exclusiveMaximum 1 @multipleOf 0.5 */ ratio?: number',
      '  /** @minLength 2 @maxLength 2 @pattern ^[A-Z]{2}$ */ code?: string',
      '  /** @format email */ email?: string',
      '  /** @minItems 1 @maxItems 5 @uniqueItems */ tags?: string[]',
      // The description already says the default: not said twice.
      '  /** Number of results (1-20, default 5) @integer */ count?: number',
      '}',
    ])
  })

  it('renders a cycle of bare $refs as unknown, never `type A = A` (which TypeScript reads as any)', () => {
    const cases: unknown[] = [
      {
        $defs: { A: { $ref: '#/$defs/B' }, B: { $ref: '#/$defs/A' } },
        type: 'object',
        properties: { x: { $ref: '#/$defs/A' } },
        additionalProperties: false,
      },
      { $defs: { A: { $ref: '#/$defs/A' } }, type: 'object', properties: { x: { $ref: '#/$defs/A' } }, additionalProperties: false },
      {
        $defs: { A: { allOf: [{ $ref: '#/$defs/B' }] }, B: { anyOf: [{ $ref: '#/$defs/A' }] } },
        type: 'object',
        properties: { x: { $ref: '#/$defs/A' } },
        additionalProperties: false,
      },
      {
        definitions: { A: { $ref: '#/definitions/B', description: 'a' }, B: { $ref: '#/definitions/C' }, C: { $ref: '#/definitions/A' } },
        type: 'object',
        properties: { x: { $ref: '#/definitions/A' } },
        additionalProperties: false,
      },
    ]
    for (const schema of cases) expect(schemaToTs(schema)).toEqual({ text: '{ x?: unknown }', aliases: [] })
    expect(schemaToTs({ $ref: '#' })).toEqual({ text: 'unknown', aliases: [] })
    // Through an object it is real recursion, and stays a named type.
    expect(
      schemaToTs({
        $defs: { N: { type: 'object', properties: { next: { $ref: '#/$defs/N' } }, additionalProperties: false } },
        $ref: '#/$defs/N',
      }),
    ).toEqual({ text: 'N', aliases: ['type N = { next?: N }'] })
  })

  it('renders a closed object without properties as an empty record', () => {
    expect(ts({ type: 'object', properties: {}, additionalProperties: false })).toBe('Record<string, never>')
  })

  it('quotes property names that are not identifiers', () => {
    const schema = {
      type: 'object',
      properties: { 'content-type': { type: 'string' }, $ok: { type: 'string' }, '2x': { type: 'string' } },
      additionalProperties: false,
    }
    expect(ts(schema)).toBe('{ "content-type"?: string; $ok?: string; "2x"?: string }')
  })

  it('types a required name with no property schema as unknown', () => {
    expect(ts({ type: 'object', required: ['x'], additionalProperties: false })).toBe('{ x: unknown }')
  })

  it("puts description, format, default, examples and deprecated in JSDoc on the property's line", () => {
    const schema = {
      type: 'object',
      properties: {
        when: { type: 'string', format: 'date-time', description: 'When it */ happened.\n  UTC.' },
        count: { type: 'integer', default: 3, examples: [5, 6] },
        old: { type: 'boolean', deprecated: true },
      },
      additionalProperties: false,
    }
    expect(ts(schema)).toBe(
      [
        '{',
        '  /** When it *\\/ happened. UTC. @format date-time */ when?: string',
        '  /** @integer @default 3 @example 5 */ count?: number',
        '  /** @deprecated */ old?: boolean',
        '}',
      ].join('\n'),
    )
  })

  it('indents nested objects under their property', () => {
    const schema = {
      type: 'object',
      properties: {
        author: {
          type: 'object',
          properties: { name: { type: 'string', description: 'Full name' } },
          required: ['name'],
          additionalProperties: false,
        },
      },
      required: ['author'],
      additionalProperties: false,
    }
    expect(ts(schema)).toBe(['{', '  author: {', '    /** Full name */ name: string', '  }', '}'].join('\n'))
  })

  it('implies an object from properties when type is missing', () => {
    expect(ts({ properties: { a: { type: 'string' } }, additionalProperties: false })).toBe('{ a?: string }')
  })

  it('gives enum-keyed records (zod z.record(z.enum(...))) one property per key', () => {
    const schema = { type: 'object', propertyNames: { enum: ['x', 'y'] }, additionalProperties: { type: 'number' }, required: ['x', 'y'] }
    expect(ts(schema)).toBe('{ x: number; y: number }')
  })
})

describe('schemaToTs: arrays and tuples', () => {
  it('renders items as T[], parenthesising unions', () => {
    expect(ts({ type: 'array', items: { type: 'string' } })).toBe('string[]')
    expect(ts({ type: 'array', items: { type: ['string', 'number'] } })).toBe('(string | number)[]')
    expect(ts({ type: 'array' })).toBe('unknown[]')
  })

  it('renders 2020-12 prefixItems tuples, closed by items: false, elements past minItems optional', () => {
    expect(ts({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false, minItems: 2 })).toBe('[string, number]')
    expect(ts({ type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'number' }, minItems: 1 })).toBe('[string, ...number[]]')
    expect(ts({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false, minItems: 1 })).toBe(
      '[string, number?]',
    )
  })

  it('renders draft-7 array items as tuples with additionalItems as the rest', () => {
    expect(ts({ type: 'array', items: [{ type: 'number' }, { type: 'number' }], minItems: 2, additionalItems: false })).toBe(
      '[number, number]',
    )
    expect(ts({ type: 'array', items: [{ type: 'number' }], minItems: 1 })).toBe('[number, ...unknown[]]')
  })
})

describe('schemaToTs: combinators', () => {
  it('renders oneOf and anyOf as unions', () => {
    expect(ts({ oneOf: [{ type: 'string' }, { type: 'integer' }] })).toBe('string | number')
    expect(ts({ anyOf: [{ const: 'a' }, { type: 'null' }] })).toBe('"a" | null')
  })

  it('renders allOf as an intersection', () => {
    const a = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false }
    const b = { type: 'object', properties: { b: { type: 'number' } }, required: ['b'], additionalProperties: false }
    expect(ts({ allOf: [a, b] })).toBe('{ a: string } & { b: number }')
  })

  it('intersects a base object with a union of branches', () => {
    const schema = {
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
      additionalProperties: false,
      oneOf: [
        { type: 'object', properties: { k: { const: 'a' } }, required: ['k'], additionalProperties: false },
        { type: 'object', properties: { k: { const: 'b' } }, required: ['k'], additionalProperties: false },
      ],
    }
    expect(ts(schema)).toBe('{ id: string } & ({ k: "a" } | { k: "b" })')
  })

  it('widens to unknown where a branch says nothing it can express', () => {
    expect(ts({ anyOf: [{ type: 'string' }, { not: { type: 'string' } }] })).toBe('unknown')
    expect(ts({ type: 'string', not: { const: '' } })).toBe('string')
  })
})

describe('schemaToTs: $ref', () => {
  it('inlines local refs to $defs and definitions, decoding JSON pointer escapes', () => {
    const schema = {
      type: 'object',
      properties: { a: { $ref: '#/$defs/Point' }, b: { $ref: '#/definitions/a~1b' } },
      required: ['a', 'b'],
      additionalProperties: false,
      $defs: { Point: { type: 'array', items: { type: 'number' } } },
      definitions: { 'a/b': { enum: ['x'] } },
    }
    expect(ts(schema)).toBe('{ a: number[]; b: "x" }')
  })

  it('makes a named type for a recursive ref and reports its declaration', () => {
    const schema = {
      type: 'object',
      properties: { root: { $ref: '#/$defs/Node' } },
      required: ['root'],
      additionalProperties: false,
      $defs: {
        Node: {
          type: 'object',
          properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
          required: ['name'],
          additionalProperties: false,
        },
      },
    }
    expect(schemaToTs(schema, { namePrefix: 'Tree' })).toEqual({
      text: '{ root: TreeNode }',
      aliases: ['type TreeNode = { name: string; children?: TreeNode[] }'],
    })
  })

  it('names a reference to the whole schema (#) with the root name', () => {
    const schema = { type: 'object', properties: { next: { $ref: '#' } }, additionalProperties: false }
    expect(schemaToTs(schema, { rootName: 'ListArgs' })).toEqual({ text: 'ListArgs', aliases: ['type ListArgs = { next?: ListArgs }'] })
  })

  it('keeps names unique against names already taken', () => {
    const taken = new Set(['TreeNode'])
    const schema = { $ref: '#/$defs/Node', $defs: { Node: { type: 'array', items: { $ref: '#/$defs/Node' } } } }
    expect(schemaToTs(schema, { namePrefix: 'Tree', takenNames: taken }).text).toBe('TreeNode2')
  })

  it("prefers a recursive schema's title for its name", () => {
    const schema = {
      $ref: '#/$defs/__schema0',
      $defs: { __schema0: { title: 'file entry', type: 'array', items: { $ref: '#/$defs/__schema0' } } },
    }
    expect(schemaToTs(schema, { namePrefix: 'Ls' })).toEqual({ text: 'LsFileEntry', aliases: ['type LsFileEntry = LsFileEntry[]'] })
  })

  it('degrades remote and missing refs to unknown', () => {
    expect(ts({ $ref: 'https://example.com/schema.json' })).toBe('unknown')
    expect(ts({ $ref: '#/$defs/Missing' })).toBe('unknown')
  })
})

describe('schemaToTs: zod, through typeSchemaOf', () => {
  const zts = (schema: z.ZodType, io: 'input' | 'output' = 'input') => ts(typeSchemaOf(schema, io))

  it('closes a stripping z.object, as z.input<> is, so an excess property is caught', () => {
    expect(zts(z.object({ path: z.string(), n: z.number().optional() }))).toBe('{ path: string; n?: number }')
    expect(zts(z.looseObject({ path: z.string() }))).toBe('{ path: string; [k: string]: unknown }')
  })

  it('makes a defaulted field optional for input and present for output', () => {
    const schema = z.object({ n: z.number().default(3) })
    expect(zts(schema)).toBe('{ /** @default 3 */ n?: number }')
    expect(zts(schema, 'output')).toBe('{ /** @default 3 */ n: number }')
  })

  it('renders discriminated unions, tuples, records, nullable and recursive zod schemas', () => {
    expect(zts(z.discriminatedUnion('k', [z.object({ k: z.literal('a'), x: z.number() }), z.object({ k: z.literal('b') })]))).toBe(
      '{ k: "a"; x: number } | { k: "b" }',
    )
    expect(zts(z.tuple([z.string(), z.number()]))).toBe('[string, number]')
    expect(zts(z.record(z.string(), z.boolean()))).toBe('{ [k: string]: boolean }')
    expect(zts(z.string().nullable())).toBe('string | null')
    const Node: z.ZodType = z.object({
      name: z.string(),
      get children() {
        return z.array(Node)
      },
    })
    expect(schemaToTs(typeSchemaOf(z.object({ tree: Node, other: Node }), 'input'), { namePrefix: 'T' })).toEqual({
      text: '{ tree: TSchema0; other: TSchema0 }',
      aliases: ['type TSchema0 = { name: string; children: TSchema0[] }'],
    })
  })

  it('types what JSON Schema cannot describe (dates, maps, bigints) as unknown', () => {
    expect(zts(z.object({ when: z.date(), m: z.map(z.string(), z.number()), big: z.bigint() }))).toBe(
      '{ when: unknown; m: unknown; big: unknown }',
    )
  })
})
