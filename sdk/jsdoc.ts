/**
 * JSDoc text for the SDK's declarations: a tool's description above its method, a property's description
 * (plus `@default`, `@format`, `@example`, `@deprecated`) above the property. Models read these; keep them short.
 */
import { NUMERIC } from '../program/constraint-tags.js'

/** A `/** … *\/` block for `text`, each line prefixed by `indent`; '' when there is nothing to say. */
export function docBlock(text: string, indent: string): string {
  const lines = cleanLines(text)
  if (lines.length === 0) return ''
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`
  return `${indent}/**\n${lines.map((l) => (l === '' ? `${indent} *` : `${indent} * ${l}`)).join('\n')}\n${indent} */\n`
}

/**
 * One line of doc for a property schema: its description (unless the SDK states it once for every tool), then
 * the tags that help a model fill it in — among them every constraint the validator enforces, so a value out
 * of range is fixed before the run instead of failing mid-way with EINVAL.
 */
export function propertyDoc(schema: { readonly [key: string]: unknown }, omitDescription = false, constraints = true): string {
  const parts: string[] = []
  const description = typeof schema.description === 'string' && !omitDescription ? oneLine(schema.description) : ''
  if (description) parts.push(description)
  if (constraints) parts.push(...constraintTags(schema))
  if (typeof schema.format === 'string') parts.push(`@format ${oneLine(schema.format)}`)
  // "Number of results (1-20, default 5)" already says it.
  const saysDefault = 'default' in schema && new RegExp(`default:? ${escapeRegExp(String(schema.default))}\\b`, 'i').test(description)
  if ('default' in schema && schema.default !== undefined && !saysDefault) parts.push(`@default ${json(schema.default)}`)
  const examples = Array.isArray(schema.examples) ? schema.examples : 'example' in schema ? [schema.example] : []
  // One example is enough for a model to see the shape; more costs tokens.
  if (examples.length > 0 && examples[0] !== undefined) parts.push(`@example ${json(examples[0])}`)
  if (schema.deprecated === true) parts.push('@deprecated')
  return parts.join(' ')
}

/** `@integer @minimum 1 @maximum 100`, `@minLength 1`, `@pattern ^[a-z]+$`, `@maxItems 10` … */
export function constraintTags(schema: { readonly [key: string]: unknown }): string[] {
  const tags: string[] = []
  const types = Array.isArray(schema.type) ? schema.type : [schema.type]
  if (types.includes('integer')) tags.push('@integer')
  // A tuple's length is in its type already.
  const tuple = Array.isArray(schema.prefixItems) || Array.isArray(schema.items)
  for (const key of NUMERIC) {
    const value = schema[key]
    if (typeof value !== 'number' || !Number.isFinite(value)) continue
    // zod's .int() states the safe-integer range: true of every integer a program writes, so noise.
    if (Math.abs(value) >= Number.MAX_SAFE_INTEGER) continue
    if (tuple && (key === 'minItems' || key === 'maxItems')) continue
    tags.push(`@${key} ${value}`)
  }
  if (typeof schema.pattern === 'string') tags.push(`@pattern ${oneLine(schema.pattern)}`)
  if (schema.uniqueItems === true) tags.push('@uniqueItems')
  return tags
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
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
