/**
 * One conversation of the session corpus: turns a model sends to one session, in order, and what a user
 * expects of each. Cases are data: add a turn or a case to grow the corpus.
 */
export interface SessionTurn {
  code: string
  expect: {
    /** The run ended ok with this value (deep equality). */
    value?: unknown
    /** The run failed while running; the observation matches. */
    failed?: RegExp
    /** The run was stopped before it ran (type or compile error) with a message that names the fix. */
    stopped?: { kind: 'type' | 'compile'; message: RegExp }
    /** Console lines that must appear, in order (each a substring of one line). */
    logs?: string[]
    /** Tool calls made by this turn, by name, in issue order (checked when given). */
    calls?: string[]
    /** The observation matches (the text the model reads). */
    observation?: RegExp
  }
}

export interface SessionCase {
  name: string
  turns: SessionTurn[]
  /** Tool executions over the whole conversation, by name (checked when given): nothing fetched twice. */
  executions?: Record<string, number>
}
