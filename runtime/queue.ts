/** A FIFO with O(1) shift: an array and a head index, compacted once the consumed part is the larger half. */
export class Queue<T> {
  #items: (T | undefined)[] = []
  #head = 0

  get size(): number {
    return this.#items.length - this.#head
  }

  push(item: T): void {
    this.#items.push(item)
  }

  peek(): T | undefined {
    return this.#items[this.#head]
  }

  map<U>(fn: (item: T) => U): U[] {
    const out: U[] = []
    for (let i = this.#head; i < this.#items.length; i++) out.push(fn(this.#items[i] as T))
    return out
  }

  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined
    const item = this.#items[this.#head]
    this.#items[this.#head++] = undefined
    if (this.#head === this.#items.length) {
      this.#items = []
      this.#head = 0
    } else if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head)
      this.#head = 0
    }
    return item
  }
}
