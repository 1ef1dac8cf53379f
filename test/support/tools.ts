/** Real tools used across the runtime tests: they sleep, record their timelines, and fail on request. */
import { z } from 'zod'
import { defineTool } from '../../vocabulary/define-tool.js'
import type { AnyToolDefinition } from '../../vocabulary/types.js'

export interface Timeline {
  events: { name: string; id: string; at: 'start' | 'end'; t: number }[]
  peak: number
}

export function timedTools(timeline: Timeline): AnyToolDefinition[] {
  let running = 0
  const track = async (name: string, id: string, ms: number, signal?: AbortSignal) => {
    running++
    timeline.peak = Math.max(timeline.peak, running)
    timeline.events.push({ name, id, at: 'start', t: performance.now() })
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, ms)
        signal?.addEventListener('abort', () => {
          clearTimeout(timer)
          reject(Object.assign(new Error('aborted'), { code: 'ECANCELED' }))
        })
      })
    } finally {
      running--
      timeline.events.push({ name, id, at: 'end', t: performance.now() })
    }
  }
  return [
    defineTool({
      name: 'sleep',
      description: 'Sleeps, then echoes its id.',
      parameters: z.object({ id: z.string(), ms: z.number().int().min(0) }),
      execute: async ({ id, ms }, ctx) => {
        await track('sleep', id, ms, ctx.signal)
        return id
      },
    }),
    defineTool({
      name: 'deploy',
      description: 'An exclusive tool: runs alone.',
      parameters: z.object({ id: z.string(), ms: z.number().int().min(0), fail: z.boolean().optional() }),
      exclusive: true,
      execute: async ({ id, ms, fail }, ctx) => {
        await track('deploy', id, ms, ctx.signal)
        if (fail) throw Object.assign(new Error(`deploy ${id} failed`), { code: 'EDEPLOY' })
        return id
      },
    }),
  ]
}

export const basicTools: AnyToolDefinition[] = [
  defineTool({
    name: 'add',
    description: 'Adds two numbers.',
    parameters: z.object({ a: z.number(), b: z.number() }),
    output: z.number(),
    execute: ({ a, b }) => a + b,
  }),
  {
    name: 'read_note',
    description: 'Reads a note by key (JSON Schema parameters, as MCP tools arrive).',
    parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'], additionalProperties: false },
    execute: (args: { key: string }) => {
      if (args.key === 'missing') throw Object.assign(new Error(`no note "${args.key}"`), { code: 'ENOENT' })
      if (args.key === 'boom') throw new Error('the note store is down')
      return { key: args.key, text: `note ${args.key}` }
    },
  },
  {
    name: 'echo',
    description: 'Returns its arguments.',
    parameters: { type: 'object' },
    execute: (args: unknown) => args,
  },
]
