/** Shared bits of the MCP tests: where the real servers live, and a runtime with MCP tools attached. */
import { mkdtempSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { McpStdioConfig } from '../../sdk/mcp/config.js'

const require = createRequire(import.meta.url)
const here = dirname(fileURLToPath(import.meta.url))

function binOf(pkg: string): string {
  return join(dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'index.js')
}

export const FILESYSTEM_SERVER = binOf('@modelcontextprotocol/server-filesystem')
export const MEMORY_SERVER = binOf('@modelcontextprotocol/server-memory')
export const TEST_SERVER = join(here, 'fixtures', 'test-server.mjs')
export const REPO_ROOT = join(here, '..', '..')

export function nodeServer(script: string, ...args: string[]): McpStdioConfig {
  return { command: process.execPath, args: [script, ...args] }
}

export function tempDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)))
}
