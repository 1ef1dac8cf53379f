/**
 * The types of the guest realm the runner runs programs in (`#guest/realm`: images/realm.mjs today, the
 * guest runtime's module once it lands; package.json's `imports` names which).
 */
import type { Bridge } from './bridge.js'

export interface Realm {
  bind(
    send: (id: unknown, name: unknown, argsJson: unknown) => void,
    log: (level: unknown, text: unknown) => void,
    config: string,
    seed?: string,
  ): Bridge
}
export function createRealm(preludeSource: string): Realm
export function warmUp(preludeSource: string): void
