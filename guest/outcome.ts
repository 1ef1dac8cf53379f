/** What a run reports back to the host, as JSON text (the host checks it before it believes it). */
export type Outcome =
  | { ok: true; valueJson?: string; valueNote?: string; droppedOutputBytes: number; logLines: number; clock?: number[] }
  | { ok: false; error: { name: string; message: string; stack?: string }; droppedOutputBytes: number; logLines: number; clock?: number[] }
