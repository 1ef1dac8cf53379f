/**
 * `maxIdenticalCalls`: a loop that never advances asks the same tool the same thing again each time the
 * last answer came back. Calls made together (Promise.all over the same arguments) are not a loop waiting
 * on its answer: they start a new count, as does any other call in between.
 */
import { raiseHint } from './limits.js'

export class IdenticalCalls {
  #name: string | undefined
  #args = ''
  #streak = 0
  readonly #max: number

  constructor(max: number) {
    this.#max = max
  }

  /** Why this call is one too many in a row (`idle`: every earlier call has answered), or undefined. */
  check(name: string, argsJson: string, idle: boolean): string | undefined {
    if (name === this.#name && argsJson === this.#args && idle) return ++this.#streak > this.#max ? this.#why() : undefined
    this.#name = name
    this.#args = argsJson
    this.#streak = 1
    return undefined
  }

  #why(): string {
    const args = this.#args.length > 80 ? `${this.#args.slice(0, 79)}…` : this.#args
    return `the program called ${this.#name}(${args}) ${this.#max} times in a row with the same arguments, each after the last had answered — a loop that does not advance; it was stopped before call ${this.#max + 1} (${raiseHint('maxIdenticalCalls')})`
  }
}
