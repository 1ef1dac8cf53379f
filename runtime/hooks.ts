/** Hooks registered once and applied to every call from every origin, in registration order. */
import type { HookMap, HookName } from '../vocabulary/types.js'

export class Hooks {
  #hooks: { [K in HookName]: HookMap[K][] } = { 'pre-execute': [], 'post-execute': [] }

  /** Registers a hook; returns a function that removes it. */
  on<K extends HookName>(name: K, hook: HookMap[K]): () => void {
    const list = this.#hooks[name] as HookMap[K][]
    list.push(hook)
    return () => {
      const i = list.indexOf(hook)
      if (i >= 0) list.splice(i, 1)
    }
  }

  list<K extends HookName>(name: K): readonly HookMap[K][] {
    return this.#hooks[name] as HookMap[K][]
  }
}
