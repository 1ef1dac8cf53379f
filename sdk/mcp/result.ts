/**
 * A `tools/call` answer -> what a codeact tool resolves to, or the errno-style error it throws.
 *   structuredContent            -> that object
 *   one text block               -> the string (JSON text stays a string: the program parses it if it wants)
 *   several blocks / non-text    -> an array; images, audio and resources are summarized, never inlined
 *   isError: true                -> McpToolError { code: the errno the text names, else EREMOTE }
 */
import { constants } from 'node:os'
import type { JsonValue } from '../../vocabulary/types.js'

/** A failed remote call, thrown from a tool's execute so dispatch records `{ code, message }`. */
export class McpToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'McpToolError'
  }
}

/** The parts of a CallToolResult this mapping reads (the SDK's type is wider and version-dependent). */
export interface CallResultLike {
  content?: unknown
  structuredContent?: unknown
  isError?: unknown
  /** Pre-2025 servers may answer `{ toolResult }`. */
  toolResult?: unknown
}

const ERRNOS = new Set([...Object.keys(constants.errno), 'ECANCELED', 'ETIMEDOUT', 'EDQUOT'])

export function mapCallResult(tool: string, result: CallResultLike): JsonValue {
  const blocks = Array.isArray(result.content) ? (result.content as unknown[]) : []
  if (result.isError === true) {
    const text =
      blocks
        .map(blockText)
        .filter((t) => t !== '')
        .join('\n') || `${tool} failed on the MCP server (no message)`
    throw new McpToolError(errnoOf(text), text)
  }
  if (isObject(result.structuredContent)) return toJsonValue(result.structuredContent)
  if (!Array.isArray(result.content) && result.toolResult !== undefined) return toJsonValue(result.toolResult)
  const mapped = blocks.map(mapBlock)
  if (mapped.length === 0) return null
  if (mapped.length === 1) return mapped[0]!
  return mapped
}

/** The errno a message carries ("ENOENT: no such file …"), or a close reading of common phrasings. */
export function errnoOf(text: string): string {
  for (const m of text.matchAll(/\b(E[A-Z0-9]{2,14})\b/g)) if (ERRNOS.has(m[1]!)) return m[1]!
  if (/access denied|permission denied|outside (the )?allowed/i.test(text)) return 'EACCES'
  if (/not found|no such file/i.test(text)) return 'ENOENT'
  if (/invalid arguments?|validation error|input validation/i.test(text)) return 'EINVAL'
  return 'EREMOTE'
}

function mapBlock(block: unknown): JsonValue {
  if (!isObject(block)) return null
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? block.text : ''
    case 'image':
    case 'audio':
      return { type: block.type, mimeType: str(block.mimeType), bytes: base64Bytes(block.data) }
    case 'resource': {
      const r = isObject(block.resource) ? block.resource : {}
      return {
        type: 'resource',
        uri: str(r.uri),
        ...(typeof r.mimeType === 'string' ? { mimeType: r.mimeType } : {}),
        ...(typeof r.text === 'string' ? { text: r.text } : { bytes: base64Bytes(r.blob) }),
      }
    }
    case 'resource_link':
      return { type: 'resource_link', uri: str(block.uri), ...(typeof block.name === 'string' ? { name: block.name } : {}) }
    default:
      return { type: str(block.type) || 'unknown' }
  }
}

function blockText(block: unknown): string {
  if (!isObject(block)) return ''
  if (block.type === 'text' && typeof block.text === 'string') return block.text
  if (block.type === 'resource' && isObject(block.resource) && typeof block.resource.text === 'string') return block.resource.text
  return ''
}

function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad)
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : ''
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

function toJsonValue(v: unknown): JsonValue {
  try {
    return (JSON.parse(JSON.stringify(v)) as JsonValue) ?? null
  } catch {
    return null
  }
}
