/** One corpus program and what a user expects of its run. Cases are data: add one to grow the corpus. */
export interface ProgramCase {
  name: string
  code: string
  expect: {
    /** The program ran; its return value (deep equality). */
    value?: unknown
    /** The run succeeded (set implicitly by `value`). */
    ok?: boolean
    /** Console lines that must appear, in order (each a substring of one line). */
    logs?: string[]
    /** A line of the notes after the result (a type-check note, a shape note …). */
    note?: RegExp
    /** The run was stopped before it ran: the error's kind and a message that names the fix. */
    stopped?: { kind: 'type' | 'compile'; message: RegExp; line?: number }
    /** The run failed while running (a tool said no, the program threw): the error's message. */
    failed?: RegExp
    /** Tool calls made, by name, in issue order (checked when given). */
    calls?: string[]
  }
}
