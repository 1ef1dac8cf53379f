/**
 * Plays dispatch for the workspace tests: validate (zod) -> the policy hook -> execute with a real
 * ToolContext -> a ToolResult value. Real temp folders, real bwrap, no mocks.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ZodType } from 'zod'
import type { JsonValue, ToolContext, ToolError, ToolResult } from '../../vocabulary/types.js'
import { createWorkspace, type Workspace, type WorkspaceOptions } from '../../sandbox/workspace/index.js'

export interface Harness {
  ws: Workspace
  /** Real path of the workspace root. */
  root: string
  /** A folder next to the workspace, outside it. */
  outside: string
  denials: ToolError[]
  call(
    name: string,
    args: Record<string, JsonValue | undefined>,
    services?: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<ToolResult>
  /** The value of a call that must succeed. */
  ok<T = JsonValue>(name: string, args: Record<string, JsonValue | undefined>): Promise<T>
  cleanup(): void
}

let seq = 0

export function harness(options: Omit<WorkspaceOptions, 'root'> = {}, setup?: (root: string, outside: string) => void): Harness {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'codeact-ws-')))
  const root = join(base, 'ws')
  const outside = join(base, 'outside')
  rmSync(root, { recursive: true, force: true })
  makeDir(root)
  makeDir(outside)
  setup?.(root, outside)
  const ws = createWorkspace({ root, ...options })
  const denials: ToolError[] = []
  const call = async (
    name: string,
    rawArgs: Record<string, JsonValue | undefined>,
    services: Record<string, unknown> = {},
    signal: AbortSignal = new AbortController().signal,
  ): Promise<ToolResult> => {
    const tool = ws.tools.find((t) => t.name === name)
    if (!tool) return { ok: false, error: { code: 'ENOSYS', message: name } }
    const parsed = (tool.parameters as ZodType).safeParse(rawArgs)
    if (!parsed.success) return { ok: false, error: { code: 'EINVAL', message: parsed.error.message } }
    const args = parsed.data as JsonValue
    const id = `call_${++seq}`
    const decision = await ws.policy({ id, name, args, origin: 'code' })
    if (decision && 'deny' in decision) return { ok: false, error: decision.deny }
    const ctx: ToolContext = {
      callId: id,
      parentId: undefined,
      origin: 'code',
      signal,
      concludeTurn: () => undefined,
      reportDenial: (d) => void denials.push(d),
      services,
    }
    try {
      const value = (await tool.execute(args, ctx)) as JsonValue
      return { ok: true, value: value === undefined ? null : value }
    } catch (e) {
      const code = typeof (e as { code?: unknown }).code === 'string' ? (e as { code: string }).code : 'ETOOL'
      return { ok: false, error: { code, message: e instanceof Error ? e.message : String(e) } }
    }
  }
  return {
    ws,
    root,
    outside,
    denials,
    call,
    async ok<T>(name: string, args: Record<string, JsonValue | undefined>): Promise<T> {
      const r = await call(name, args)
      if (!r.ok) throw new Error(`${name} failed: ${r.error.code} ${r.error.message}`)
      return r.value as T
    },
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  }
}

function makeDir(p: string): void {
  mkdirSync(p, { recursive: true })
}

/** The error code of a failed result ('ok' when it succeeded), for compact assertions. */
export function codeOf(r: ToolResult): string {
  return r.ok ? 'ok' : r.error.code
}
