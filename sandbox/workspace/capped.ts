/** A cap on what is kept of one stream; the rest is drained and dropped. The container runner bundles it too. */
export class Capped {
  private chunks: Buffer[] = []
  private size = 0
  truncated = false
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    const room = this.max - this.size
    if (room <= 0) {
      this.truncated = true
      return
    }
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk
    if (part.length < chunk.length) this.truncated = true
    this.chunks.push(part)
    this.size += part.length
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8')
  }
}
