/**
 * Programs written for OpenAI's programmatic tool calling, run as they are: JavaScript with top-level
 * `await`, each tool a global async function (`await get_weather({ city })`, or `get_weather("Paris")` for
 * a one-parameter tool), output through `text(value)` and `image(source)`, and the program's value returned.
 * The program text is code mode's with a one-line prelude in front that defines those globals over
 * `tools.x()`; the user's lines keep their numbers (the prelude shares line 1) and their block its own scope,
 * so a program that declares a name the prelude uses shadows it. The answer is a `program_output` item's
 * `result` and `status`.
 */
import type { JsonSchema, RunResult } from '../../vocabulary/types.js'
import type { RegisteredTool } from '../registry.js'

/** What a `program_output` item carries, plus the run it came from. */
export interface ProgramOutput {
  /** The program's `text(...)` output, one per line, then its returned value (JSON unless a string). */
  result: string
  /** `completed` when the program ran to its end; `incomplete` otherwise (the result says why). */
  status: 'completed' | 'incomplete'
  run: RunResult
}

const RESERVED = new Set([
  'text',
  'image',
  'tools',
  'console',
  'await',
  'async',
  'function',
  'return',
  'delete',
  'default',
  'new',
  'class',
  'const',
  'let',
  'var',
  'in',
  'of',
  'do',
  'if',
  'for',
  'while',
  'with',
  'switch',
  'case',
  'try',
  'catch',
  'finally',
  'throw',
  'void',
  'typeof',
  'instanceof',
  'this',
  'super',
  'import',
  'export',
  'extends',
  'yield',
  'enum',
  'null',
  'true',
  'false',
  'debugger',
  'break',
  'continue',
  'else',
])

/** The program text codeact runs for a PTC program: the globals' prelude on line 1, then the program in a block. */
export function ptcSource(code: string, tools: readonly RegisteredTool[]): string {
  const globals = tools
    .filter((t) => /^[A-Za-z_$][\w$]*$/.test(t.definition.name) && !RESERVED.has(t.definition.name))
    .map((t) => {
      const name = t.definition.name
      return `const ${name} = (input?: unknown) => tools.${name}(__ptcArgs(input, ${JSON.stringify(singleParameter(t.parameters))}) as never);`
    })
  const prelude = [
    'const __ptcArgs = (input: unknown, single: string | null): unknown => single !== null && (typeof input !== "object" || input === null || Array.isArray(input)) && input !== undefined ? { [single]: input } : (input ?? {});',
    'const text = (value: unknown): void => { console.log(typeof value === "string" ? value : JSON.stringify(value)) };',
    'const image = (source: unknown): void => { const s = String(source); console.log(`[image: ${s.length > 60 ? `${s.slice(0, 60)}… (${s.length} characters)` : s}]`) };',
    ...globals,
  ].join(' ')
  return `${prelude} {${code}\n}`
}

/** The `program_output` of a run: the lines it sent with `text()`, then its value. */
export function programOutput(run: RunResult): ProgramOutput {
  if (!run.ok) return { result: run.observation, status: 'incomplete', run }
  const lines = run.logs.map((l) => l.text)
  if (run.value !== undefined && run.value !== null) lines.push(typeof run.value === 'string' ? run.value : JSON.stringify(run.value))
  return { result: lines.join('\n'), status: 'completed', run }
}

/** The parameter a plain argument fills: the only one, or the only required one. */
function singleParameter(schema: JsonSchema): string | null {
  const props = typeof schema.properties === 'object' && schema.properties !== null ? Object.keys(schema.properties) : []
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []
  return props.length === 1 ? props[0]! : required.length === 1 ? required[0]! : null
}
