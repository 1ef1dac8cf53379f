/** Which definitions an adapter offers: `rt.tools.definitions()`, or only the named ones. */
import type { FunctionToolDefinition, Runtime } from '../runtime/index.js'

export interface AdapterOptions {
  /** Offer only these tools (default: `rt.tools.definitions()` — every tool and `run_code`, only `run_code` in code mode). */
  only?: readonly string[]
}

export function selectDefinitions(rt: Runtime, options: AdapterOptions): FunctionToolDefinition[] {
  const all = rt.tools.definitions()
  if (!options.only) return all
  const only = new Set(options.only)
  return all.filter((d) => only.has(d.name))
}
