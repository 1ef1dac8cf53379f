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
import { connectShared, shareChecker, warmShared } from '../program/checker-client.js'
import { checkInPool } from '../program/typecheck-pool.js'

let started = false

/** Starts them (once per process); returns what ends the child if the runtime never took it. */
export function prestart(sandbox: string | undefined, typecheck?: string): () => Promise<void> {
  if (started) return dropPrestarted
  started = true
  if (sandbox === undefined || sandbox === 'isolate') {
    const found = resolveChildEntry()
    // The runtime's own isolate sandbox spawns with exactly this entry and config (the CLI sets no isolate options).
    if (found.ok) prestartChild(found.path, DEFAULT_CHILD_CONFIG)
  }
  // With the check on (the default), the check goes to this user's shared checker (program/checker-client.ts),
  // reached — or started — while the host imports, and warmed for Node's types on Docker (its programs are
  // checked against them). Without one, and with the check off: a trivial program prepared in this process's
  // thread, which loads its parser meanwhile (the lib waits for the check: a run that ends at once, bad
  // usage, must not wait for a parse it does not need).
  const local = () => void checkInPool(undefined, 'return 0', 5000, { allowNodeImports: false })
  if (typecheck === 'off') local()
  else {
    shareChecker()
    void connectShared().then((shared) => (shared ? warmShared('', sandbox === 'docker', true) : local()))
  }
  return dropPrestarted
}

/**
 * The same from `codeact run`'s raw arguments, before the CLI's flag parser is loaded: only `--sandbox` and `--typecheck`
 * matters here. A misread costs at most a child that nothing takes, which runCommand's drop
 * then ends, or a thread or modules loaded for nothing.
 */
export function prestartFromArgv(args: readonly string[]): void {
  const flags: Record<'sandbox' | 'typecheck', string | undefined> = { sandbox: undefined, typecheck: undefined }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ''
    if (arg === '--') break
    if (arg === '--help' || arg === '-h') return
    for (const name of ['sandbox', 'typecheck'] as const) {
      if (arg === `--${name}`) flags[name] = args[++i]
      else if (arg.startsWith(`--${name}=`)) flags[name] = arg.slice(name.length + 3)
    }
  }
  prestart(flags.sandbox, flags.typecheck)
}
