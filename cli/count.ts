/**
 * A count as the summary and the status line print it: 1,234. Not `toLocaleString`: its first call loads
 * ICU's number formatting, a noticeable part of a trivial run's closing line.
 */
export function count(x: number): string {
  return Number.isSafeInteger(x) ? String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : x.toLocaleString('en-US')
}
