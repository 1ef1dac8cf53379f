/**
 * What `codeact run` starts before it loads the runtime (a few hundred milliseconds of module loading on
 * the host's thread): the isolate child (Node start-up + isolated-vm + the first isolate, in its own process)
 * and, with the check on, a checker thread (loading its parser in its own thread), so they start on the other
 * core while the host imports. The runtime then takes that very child for its one caller (spare-child.ts:
 * never used before, taken once) and the thread from the process-wide pool, instead of starting them after
 * the imports. The check on or off, the program is prepared in that thread (program/prepare.ts).
 *
 * bin/codeact.mjs calls `prestartFromArgv` first thing, before it loads the rest of the CLI; runCommand calls
 * `prestart` again with the parsed flags (a no-op once started) and always the drop it returns.
 */
import { resolveChildEntry } from '../sandbox/isolate/child-path.js'
import { DEFAULT_CHILD_CONFIG } from '../sandbox/isolate/protocol.js'
import { dropPrestarted, prestartChild } from '../sandbox/isolate/spare-child.js'
import { checkInPool } from '../program/typecheck-pool.js'

let started = false

/** Starts them (once per process); returns what ends the child if the runtime never took it. */
export function prestart(sandbox: string | undefined): () => Promise<void> {
  if (started) return dropPrestarted
  started = true
  if (sandbox === undefined || sandbox === 'isolate') {
    const found = resolveChildEntry()
    // The runtime's own isolate sandbox spawns with exactly this entry and config (the CLI sets no isolate options).
    if (found.ok) prestartChild(found.path, DEFAULT_CHILD_CONFIG)
  }
  // A trivial program prepared in the pool: the thread starts and loads its parser meanwhile.
  void checkInPool(undefined, 'return 0', 5000, { allowNodeImports: false })
  return dropPrestarted
}

/**
 * The same from `codeact run`'s raw arguments, before the CLI's flag parser is loaded: only `--sandbox`
 * matters here. A misread costs at most a child that nothing takes, which runCommand's drop
 * then ends, or a thread or modules loaded for nothing.
 */
export function prestartFromArgv(args: readonly string[]): void {
  let sandbox: string | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ''
    if (arg === '--') break
    if (arg === '--help' || arg === '-h') return
    if (arg === '--sandbox') sandbox = args[++i]
    else if (arg.startsWith('--sandbox=')) sandbox = arg.slice('--sandbox='.length)
  }
  prestart(sandbox)
}
