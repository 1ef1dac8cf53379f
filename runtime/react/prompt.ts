/**
 * `rt.reactPrompt()`: the instructions and one worked example that make a model write actions
 * `rt.executeText` reads, generated from the tools a model may call directly (their names, parameters and
 * descriptions as registered now). Goes in the system prompt; the model's turns end where `Observation:` would start.
 */
import type { JsonSchema } from '../../vocabulary/types.js'
import type { RegisteredTool } from '../registry.js'
import type { ReactFormat } from './parse.js'

export interface ReactPromptOptions {
  /** The form to teach (default `react`: `Tool[…]` / `Finish[…]`; `langchain`: `Action:` / `Action Input:` / `Final Answer:`). */
  format?: Exclude<ReactFormat, 'auto'>
}

export function reactPrompt(tools: readonly RegisteredTool[], options: ReactPromptOptions = {}): string {
  const langchain = options.format === 'langchain'
  const list = tools.map(
    (t) => `- ${t.definition.name}${langchain ? '' : '[…]'}: ${oneLine(t.definition.description)} Input: ${inputText(t.parameters)}`,
  )
  const sample = tools[0]
  const call = sample ? { name: sample.definition.name, input: sampleInput(sample.parameters) } : { name: 'tool_name', input: '{}' }
  const action = langchain ? `Action: ${call.name}\nAction Input: ${call.input}` : `Action: ${call.name}[${call.input}]`
  const finish = langchain ? 'Final Answer: the answer' : 'Finish[the answer]'
  return [
    'Solve the task in turns. In each turn write a thought, then the action(s) to take, then stop:',
    '',
    'Thought: what you know so far and what to do next',
    langchain
      ? 'Action: the tool to use, one of the tools below\nAction Input: its input, as a JSON object'
      : 'Action: tool_name[{"param": value}]',
    '',
    `The reply starts with "Observation:", the result of your action. ${langchain ? 'Never' : 'Several Action lines run in order (the observations are numbered); never'} write an Observation yourself.`,
    langchain
      ? 'A tool with one parameter also takes the plain value as its input.'
      : 'A tool with one parameter also takes the plain value: tool_name[value].',
    'When you know the answer, write:',
    '',
    'Thought: I know the answer',
    finish,
    '',
    'Tools:',
    ...(list.length ? list : ['(none)']),
    '',
    'Example:',
    'Thought: I need to use a tool first.',
    action,
    'Observation: (the result)',
    'Thought: I know the answer',
    finish,
  ].join('\n')
}

function inputText(schema: JsonSchema): string {
  const { props, required } = fields(schema)
  const entries = Object.entries(props).map(([k, v]) => `"${k}"${required.includes(k) ? '' : '?'}: ${typeText(v)}`)
  return `{${entries.join(', ')}}`
}

function sampleInput(schema: JsonSchema): string {
  const { props, required } = fields(schema)
  const names = required.length ? required : Object.keys(props).slice(0, 1)
  return JSON.stringify(Object.fromEntries(names.map((n) => [n, sampleValue(props[n])])))
}

function fields(schema: JsonSchema): { props: Record<string, unknown>; required: string[] } {
  const props = typeof schema.properties === 'object' && schema.properties !== null ? (schema.properties as Record<string, unknown>) : {}
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []
  return { props, required }
}

function typeText(prop: unknown): string {
  const p = (typeof prop === 'object' && prop !== null ? prop : {}) as Record<string, unknown>
  if (Array.isArray(p.enum)) return p.enum.map((v) => JSON.stringify(v)).join(' | ')
  return typeof p.type === 'string' ? p.type : 'value'
}

function sampleValue(prop: unknown): unknown {
  const p = (typeof prop === 'object' && prop !== null ? prop : {}) as Record<string, unknown>
  if (Array.isArray(p.enum) && p.enum.length) return p.enum[0]
  return { number: 1, integer: 1, boolean: true, array: [], object: {} }[String(p.type)] ?? '…'
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim()
}
