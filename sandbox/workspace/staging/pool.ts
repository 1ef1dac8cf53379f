/** A bounded pool of concurrent file-system steps. */
/** Runs `each` over `items`, `width` at a time (fs calls overlap on libuv's pool). */
export async function inPool<T>(items: readonly T[], width: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < items.length) await each(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane))
}
