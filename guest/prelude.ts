/**
 * The prelude: what a program sees (`tools`, `ToolCallError`, `console`, timers, the safe standard
 * globals) and the code that runs it and serialises its outcome, the same in every backend. Evaluating
 * the guest bundle installs the standard globals in the realm once; `codeactPrelude` (run.ts) is then
 * called once per run. Every backend evaluates it before the program's script, so all of this happens
 * before any of the program's text can run.
 */
import { installStandardGlobals } from './globals.js'
import { codeactPrelude } from './run.js'

export function installPrelude(): typeof codeactPrelude {
  installStandardGlobals()
  return codeactPrelude
}
