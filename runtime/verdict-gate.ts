/**
 * Holds a run's effects until its type check's verdict (a run started while its check goes on,
 * runtime/run-verdict.ts). Until then nothing of the run reaches the world: a tool call is not logged,
 * validated, hooked, approved or executed, a console line is not logged — each waits here, in the order the
 * program made them. A clean verdict lets them through in that order, at once (so the event log reads as if
 * nothing had waited); a blocking one drops them all: held calls are answered `refused`, never dispatched,
 * and nothing held is logged.
 *
 * Only for a backend whose programs reach the world through the host alone (`capabilities.effectsOnlyThroughHost`):
 * what a program did with a file system or a network of its own could not be held here.
 */
export class VerdictGate {
  /** What waits for the verdict, in the program's order; undefined once it came. */
  #held: (() => void)[] | undefined = []
  #blocked = false
  /** Told when the first call is held and when the held calls are let go (the program's clock stands still between). */
  #holding: ((holding: boolean) => void) | undefined
  #holdsCall = false

  /** The verdict has come (either way): what arrives now is let through or refused at once. */
  get decided(): boolean {
    return this.#held === undefined
  }

  /** `pass` now if the verdict was clean, at the verdict if it has not come; never if it blocked (`refused`). */
  call(pass: () => Promise<string>, refused: string): Promise<string> {
    const held = this.#held
    if (held === undefined) return this.#blocked ? Promise.resolve(refused) : pass()
    if (!this.#holdsCall) {
      this.#holdsCall = true
      this.#tell(true)
    }
    return new Promise((resolve) => {
      // pass() runs in the flush itself, synchronously up to its first await: the call is logged in turn.
      held.push(() => resolve(this.#blocked ? refused : pass()))
    })
  }

  /** `emit` now if the verdict was clean, at the verdict if it has not come; never if it blocked. */
  log(emit: () => void): void {
    const held = this.#held
    if (held === undefined) {
      if (!this.#blocked) emit()
      return
    }
    held.push(() => {
      if (!this.#blocked) emit()
    })
  }

  /** `listener(true)` when the gate first holds a call, `listener(false)` when it lets what it held go. */
  onHold(listener: (holding: boolean) => void): void {
    this.#holding = listener
  }

  #tell(holding: boolean): void {
    try {
      this.#holding?.(holding)
    } catch {
      // The backend's listener failing must not keep the calls waiting.
    }
  }

  /** A clean verdict: what waited goes through, in order. */
  open(): void {
    this.#release()
  }

  /** A blocking verdict: what waited is dropped (held calls answered `refused`), and so is all that comes later. */
  block(): void {
    this.#blocked = true
    this.#release()
  }

  #release(): void {
    const held = this.#held
    if (held === undefined) return
    this.#held = undefined
    // The clock runs again before the first held call goes out: its answer is on the program's time.
    if (this.#holdsCall) this.#tell(false)
    for (const go of held) {
      try {
        go()
      } catch {
        // One held entry's failure (a logging bug) must not keep the rest waiting.
      }
    }
  }
}
