/** Shared parts of the core session tests: a counting tool set, and runtimes closed when a file ends. */
import { afterAll } from 'vitest'
import { z } from 'zod'
import { createRuntime, type Runtime, type RuntimeOptions } from '../../runtime/create-runtime.js'
import { defineTool } from '../../vocabulary/define-tool.js'

const open: Runtime[] = []
afterAll(async () => {
  await Promise.all(open.splice(0).map((rt) => rt.close()))
})

export async function runtimeWith(options: RuntimeOptions = {}): Promise<Runtime> {
  const rt = await createRuntime(options)
  open.push(rt)
  return rt
}

/** A small CRM whose every execution is counted, so a test can prove a replay ran no tool. */
export function crmTools() {
  const executions: string[] = []
  const customers: Record<string, { id: string; name: string; plan: 'free' | 'pro'; mrr: number }> = {
    c1: { id: 'c1', name: 'Acme', plan: 'pro', mrr: 1200 },
    c2: { id: 'c2', name: 'Globex', plan: 'free', mrr: 0 },
    c3: { id: 'c3', name: 'Initech', plan: 'pro', mrr: 800 },
  }
  const tools = [
    defineTool({
      name: 'list_customers',
      description: 'List customer ids.',
      parameters: z.object({}),
      output: z.array(z.string()),
      execute: () => {
        executions.push('list_customers')
        return Object.keys(customers)
      },
    }),
    defineTool({
      name: 'get_customer',
      description: 'One customer.',
      parameters: z.object({ id: z.string() }),
      output: z.object({ id: z.string(), name: z.string(), plan: z.enum(['free', 'pro']), mrr: z.number() }),
      execute: ({ id }) => {
        executions.push(`get_customer:${id}`)
        const c = customers[id]
        if (!c) throw Object.assign(new Error(`no customer ${id}`), { code: 'ENOENT' })
        return c
      },
    }),
  ]
  return { tools, executions }
}
