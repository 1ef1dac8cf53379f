/**
 * JSDoc text for the SDK's declarations: a tool's description above its method, a property's description
 * (plus `@default`, `@format`, `@example`, `@deprecated`) above the property. Models read these; keep them short.
 */

/** A `/** … *\/` block for `text`, each line prefixed by `indent`; '' when there is nothing to say. */
export function docBlock(text: string, indent: string): string {
  const lines = cleanLines(text)
  if (lines.length === 0) return ''
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`
  return `${indent}/**\n${lines.map((l) => (l === '' ? `${indent} *` : `${indent} * ${l}`)).join('\n')}\n${indent} */\n`
}

/** One line of doc for a property schema: its description, then the tags that help a model fill it in. */
export function propertyDoc(schema: { readonly [key: string]: unknown }): string {
  const parts: string[] = []
  const description = typeof schema.description === 'string' ? oneLine(schema.description) : ''
  if (description) parts.push(description)
  if (typeof schema.format === 'string') parts.push(`@format ${oneLine(schema.format)}`)
  if ('default' in schema && schema.default !== undefined) parts.push(`@default ${json(schema.default)}`)
  const examples = Array.isArray(schema.examples) ? schema.examples : 'example' in schema ? [schema.example] : []
  // One example is enough for a model to see the shape; more costs tokens.
  if (examples.length > 0 && examples[0] !== undefined) parts.push(`@example ${json(examples[0])}`)
  if (schema.deprecated === true) parts.push('@deprecated')
  return parts.join(' ')
}

function cleanLines(text: string): string[] {
  const lines = escapeEnd(text)
    .split(/\r?\n/)
    .map((l) => l.trimEnd())
  while (lines.length > 0 && lines[0]?.trim() === '') lines.shift()
  while (lines.length > 0 && lines[lines.length - 1]?.trim() === '') lines.pop()
  // Collapse runs of blank lines: they cost tokens and say nothing.
  return lines.filter((l, i) => l !== '' || lines[i - 1] !== '')
}

function oneLine(text: string): string {
  return escapeEnd(text).replace(/\s+/g, ' ').trim()
}

/** A doc comment ends at the first `*\/`; a description must not end it early. */
function escapeEnd(text: string): string {
  return text.replace(/\*\//g, '*\\/')
}

function json(value: unknown): string {
  const text = JSON.stringify(value)
  if (text === undefined) return 'undefined'
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}
