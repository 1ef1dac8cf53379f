/**
 * A small valid value for a JSON Schema: required properties only, the first enum value, the first branch of a
 * union, minItems items. Tests use it to write a correct call to every tool of a corpus, then check that the
 * generated declarations accept it (and, to be sure the sample itself is right, that ajv does too).
 */
type Schema = { [key: string]: unknown }

const FORMATS: Record<string, string> = {
  uri: 'https://example.com/',
  uuid: '123e4567-e89b-42d3-a456-426614174000',
  email: 'a@example.com',
  'date-time': '2026-01-01T00:00:00Z',
}

export function sampleValue(schema: unknown, root: unknown = schema, depth = 0): unknown {
  if (!isObject(schema) || depth > 12) return null
  if (typeof schema.$ref === 'string') return sampleValue(resolve(root, schema.$ref), root, depth + 1)
  if ('const' in schema) return schema.const
  if (Array.isArray(schema.enum)) return schema.enum[0]
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key]
    if (Array.isArray(branches) && branches.length > 0) {
      // Deep inside a recursive schema, take a branch that does not recurse.
      const pick = depth > 4 ? (branches.find((b) => !(isObject(b) && '$ref' in b)) ?? branches[0]) : branches[0]
      return sampleValue(pick, root, depth + 1)
    }
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...schema.allOf.map((s) => sampleValue(s, root, depth + 1)).filter(isObject))
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : (schema.type ?? (isObject(schema.properties) ? 'object' : undefined))
  switch (type) {
    case 'string':
      return typeof schema.format === 'string' && schema.format in FORMATS
        ? FORMATS[schema.format]
        : 'x'.repeat(typeof schema.minLength === 'number' ? schema.minLength : 1)
    case 'number':
    case 'integer':
      return typeof schema.minimum === 'number' ? schema.minimum : 1
    case 'boolean':
      return true
    case 'null':
      return null
    case 'array': {
      const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined
      if (tuple)
        return tuple.slice(0, typeof schema.minItems === 'number' ? schema.minItems : 0).map((s) => sampleValue(s, root, depth + 1))
      // One item shows the item type is accepted; none past a few levels, so recursive schemas end.
      const n = typeof schema.minItems === 'number' ? schema.minItems : depth < 4 ? 1 : 0
      return Array.from({ length: n }, () => sampleValue(schema.items ?? {}, root, depth + 1))
    }
    case 'object': {
      const out: Record<string, unknown> = {}
      const properties = isObject(schema.properties) ? schema.properties : {}
      for (const name of Array.isArray(schema.required) ? schema.required : []) {
        if (typeof name === 'string') out[name] = sampleValue(properties[name] ?? {}, root, depth + 1)
      }
      return out
    }
    default:
      return null
  }
}

function resolve(root: unknown, ref: string): unknown {
  let node = root
  for (const segment of ref
    .replace(/^#\/?/, '')
    .split('/')
    .filter((s) => s !== '')) {
    node = isObject(node) ? node[segment.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined
  }
  return node
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
