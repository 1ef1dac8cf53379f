/**
 * What a blocking diagnostic says: one line that names the fix, in the sandbox's own terms, instead of
 * TypeScript's advice for a project (install @types/node, add 'dom' to lib, "Did you mean 'url'?").
 * Pure text functions: no TypeScript here, so the host can use them without loading the compiler.
 */
import { closestNames } from './suggest.js'
import { builtinsName } from './builtins.js'
import { words } from './normalise-rules.js'

/**
 * The standard globals a program has besides `tools` and `ToolCallError` (the console, and what the sandbox
 * implements that ES2023's lib does not declare), as ambient declarations for the checker.
 */
export const SANDBOX_GLOBALS = `declare const console: {
  log(...data: unknown[]): void; info(...data: unknown[]): void; warn(...data: unknown[]): void; error(...data: unknown[]): void
  debug(...data: unknown[]): void; trace(...data: unknown[]): void; dir(item?: unknown, options?: unknown): void
  table(tabularData?: unknown, properties?: readonly string[]): void
}
declare function setTimeout(handler: (...args: any[]) => void, timeout?: number, ...args: any[]): number
declare function clearTimeout(id: number | undefined): void
declare function setInterval(handler: (...args: any[]) => void, timeout?: number, ...args: any[]): number
declare function clearInterval(id: number | undefined): void
declare function queueMicrotask(callback: () => void): void
declare function atob(data: string): string
declare function btoa(data: string): string
declare function structuredClone<T>(value: T, options?: { transfer?: unknown[] }): T
declare class URLSearchParams {
  constructor(init?: string | Record<string, string> | [string, string][] | URLSearchParams)
  readonly size: number
  append(name: string, value: string): void
  delete(name: string, value?: string): void
  get(name: string): string | null
  getAll(name: string): string[]
  has(name: string, value?: string): boolean
  set(name: string, value: string): void
  sort(): void
  toString(): string
  forEach(callback: (value: string, key: string, parent: URLSearchParams) => void): void
  entries(): IterableIterator<[string, string]>
  keys(): IterableIterator<string>
  values(): IterableIterator<string>
  [Symbol.iterator](): IterableIterator<[string, string]>
}
declare class URL {
  constructor(url: string | URL, base?: string | URL)
  static canParse(url: string | URL, base?: string | URL): boolean
  static parse(url: string | URL, base?: string | URL): URL | null
  hash: string
  host: string
  hostname: string
  href: string
  readonly origin: string
  password: string
  pathname: string
  port: string
  protocol: string
  search: string
  readonly searchParams: URLSearchParams
  username: string
  toString(): string
  toJSON(): string
}
declare class TextEncoder {
  readonly encoding: string
  encode(input?: string): Uint8Array
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number }
}
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean })
  readonly encoding: string
  readonly fatal: boolean
  readonly ignoreBOM: boolean
  decode(input?: ArrayBufferView | ArrayBuffer, options?: { stream?: boolean }): string
}
${engineExtras()}`

/**
 * What this V8 has beyond ES2023's lib, declared only where it exists: the isolate runs on the host's V8, so
 * `JSON.rawJSON` is there from Node 21 on and `Intl.DurationFormat` from Node 23 on, and neither on Node 20.
 */
function engineExtras(): string {
  const json = JSON as unknown as Record<string, unknown>
  const intl = Intl as unknown as Record<string, unknown>
  let text = ''
  if (typeof json['rawJSON'] === 'function')
    text += 'interface JSON {\n  rawJSON(text: string): object\n  isRawJSON(value: unknown): boolean\n}\n'
  if (typeof intl['DurationFormat'] === 'function') text += durationFormat()
  return text
}

function durationFormat(): string {
  return `declare namespace Intl {
  class DurationFormat {
    constructor(locales?: string | readonly string[], options?: Record<string, string | number | undefined>)
    format(duration: Partial<Record<string, number>>): string
    formatToParts(duration: Partial<Record<string, number>>): { type: string; value: string; unit?: string }[]
    resolvedOptions(): Record<string, string | number>
    static supportedLocalesOf(locales: string | readonly string[], options?: { localeMatcher?: string }): string[]
  }
}
`
}

/** One line: what the sandbox offers, for every "that does not exist here" answer. */
export const SANDBOX_HAS = `The sandbox has \`tools\`, \`console\`, ${builtinsName()} built-ins and setTimeout/setInterval/queueMicrotask, URL/URLSearchParams, TextEncoder/TextDecoder, atob/btoa and structuredClone; no network, files, modules or host APIs.`

const NETWORK = ['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource', 'axios', 'Request', 'Response', 'Headers', 'FormData']
const MODULES = ['require', 'module', 'exports', '__dirname', '__filename']
const NODE = ['fs', 'path', 'os', 'child_process', 'Buffer', 'http', 'https', 'util']
const BROWSER = words(`
  document window navigator localStorage sessionStorage alert location self Blob File Event EventTarget
  AbortController
`)

/** The fix for a name the sandbox does not define, or undefined when it is not a known global. */
export function missingGlobalHint(name: string, toolNames: readonly string[]): string | undefined {
  // The best-named tools first: `fetch-page` before `brave_web_search` for `fetch`.
  const some = (re: RegExp) =>
    toolNames
      .filter((t) => re.test(t))
      .sort((a, b) => rank(a, name) - rank(b, name))
      .slice(0, 3)
      .map(toolRef)
  const use = (tools: string[], fallback: string) => (tools.length > 0 ? `call a tool instead (${tools.join(', ')})` : fallback)
  let fix: string | undefined
  if (NETWORK.includes(name))
    fix = `there is no network; ${use(some(/fetch|http|web|url|request|search|browse/i), 'reach the outside world through the tools (`await tools.name(args)`)')}.`
  else if (MODULES.includes(name))
    fix = 'there are no modules; the tools are the way out (`await tools.name(args)`), and built-ins need no import.'
  else if (name === 'process') fix = 'there is no process or environment; pass values in the program text or get them from a tool.'
  else if (NODE.includes(name))
    fix = `there are no Node APIs; ${use(some(/read_file|write_file|list_dir|bash|glob/), 'use the tools')}${name === 'Buffer' ? ', and TextEncoder/TextDecoder or atob/btoa for bytes' : ''}.`
  else if (BROWSER.includes(name)) fix = 'this is not a browser; use the tools and `console.log`.'
  else if (name === 'setImmediate') fix = 'use setTimeout(fn, 0) or queueMicrotask(fn).'
  else if (name === 'performance') fix = 'use Date.now() for timing.'
  else if (name === 'crypto') fix = 'there is no crypto API; Math.random() for non-secret randomness, or a tool.'
  else if (name === 'print') fix = 'use console.log(…), or `return` the answer.'
  if (fix === undefined) return undefined
  return `\`${name}\` does not exist in this sandbox: ${fix} ${SANDBOX_HAS}`
}

function rank(tool: string, missing: string): number {
  return tool.toLowerCase().includes(missing.toLowerCase()) ? 0 : /http|url|request|web/i.test(tool) ? 1 : 2
}

/** `github.list_issues(…)` where tools are named `github__list_issues`. */
export function toolPrefixHint(prefix: string, member: string | undefined, toolNames: readonly string[]): string | undefined {
  const exact = member === undefined ? undefined : toolNames.find((t) => t === `${prefix}__${member}` || t === `${prefix}_${member}`)
  if (exact !== undefined)
    return `\`${prefix}${member === undefined ? '' : `.${member}`}\` is not defined: call the tool as \`await ${toolRef(exact)}(args)\`.`
  const family = toolNames.filter((t) => t.startsWith(`${prefix}__`))
  if (family.length === 0) return undefined
  const close = member === undefined ? [] : closestNames(`${prefix}__${member}`, family)
  const shown = (close.length > 0 ? close : family).slice(0, 5).map(toolRef)
  return `\`${prefix}\` is not defined: its tools are called as \`await tools.${prefix}__name(args)\` (${shown.join(', ')}${family.length > shown.length && close.length === 0 ? ', …' : ''}).`
}

/** A tool name as code that can be written: `tools.read_file`, `tools["a-b"]`. */
export function toolRef(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `tools.${name}` : `tools[${JSON.stringify(name)}]`
}

/** "Did you mean" for an unknown tool, in writable form, or the first tools when nothing is close. */
export function unknownToolHint(name: string, toolNames: readonly string[]): string {
  const close = closestNames(name, toolNames)
  if (close.length > 0) return `\`${toolRef(name)}\` does not exist. Did you mean ${close.map(toolRef).join(', ')}?`
  const listed = toolNames.slice(0, 12).map(toolRef).join(', ')
  return `\`${toolRef(name)}\` does not exist. Tools: ${listed}${toolNames.length > 12 ? ', …' : ''}`
}

const JOINED: Record<string, string> = {
  '(': 'what it ends with is called with these parentheses',
  '[': 'what it ends with is indexed by these brackets',
  '`': 'what it ends with tags this template',
}

/**
 * The fix when a failed line is one half of two lines JavaScript joined: a line that starts with `(`, `[` or
 * a backtick continues the line before it unless that one ends with `;` (no automatic semicolon there), so
 * `const u = await tools.f()` followed by `({ name: u.name })` calls the call's result. Said only for a
 * reported line (or the line after it) where that is how the text reads; `lines` are the body's 1-based lines.
 */
export function joinedLinesHint(source: string, lines: readonly number[]): string | undefined {
  const text = source.split('\n')
  for (const reported of lines)
    for (const line of [reported, reported + 1]) {
      const opener = /^\s*([([`])/.exec(text[line - 1] ?? '')?.[1]
      if (opener === undefined) continue
      let prev = line - 2
      while (prev >= 0 && /^\s*(\/\/.*)?$/.test(text[prev]!)) prev--
      if (prev < 0) continue
      const end = text[prev]!.replace(/\s\/\/.*$/, '').trimEnd()
      // A value ends there (a name, a call, a literal) and no keyword that ends its statement by itself.
      if (!/[\w$)\]`'"]$/.test(end) || /(^|[^\w$.])(return|break|continue|throw|else|do|try|finally|yield)$/.test(end)) continue
      return `line ${line} starts with ${opener === '`' ? 'a backtick' : `\`${opener}\``} and line ${prev + 1} does not end with \`;\`, so JavaScript reads them as one statement (${JOINED[opener]}); if they are two statements, end line ${prev + 1} with \`;\`.`
    }
  return undefined
}

/** The fix for a Promise used as its value. */
export function awaitHint(): string {
  return 'Did you forget `await`?'
}

/** The fix for `JSON.parse(value)` of a typed object. */
export function jsonParseHint(value: string): string {
  return `\`JSON.parse(${value})\` would throw: the result is already an object; drop JSON.parse and use \`${value}\` itself.`
}

/** `ids.map(tools.get_order)`: the wrapped call, in the program's own words. */
export function callbackHint(callee: string, tool: string, field: string | undefined): string {
  const param = field !== undefined && /^[A-Za-z_$][\w$]*$/.test(field) ? field : 'x'
  const args = field === undefined ? '' : param === field ? `{ ${field} }` : `{ ${JSON.stringify(field)}: x }`
  return `\`${toolRef(tool)}\` is passed as a callback, so it would be called with (value, index, array) instead of its arguments object; wrap it: \`${callee}((${param}) => ${toolRef(tool)}(${args}))\`.`
}

/** A field a closed type does not have: whose it is, what it has, and the closest names. */
export function missingFieldHint(
  value: string,
  field: string,
  type: string,
  fields: readonly string[],
  close: readonly string[],
  tool: string | undefined,
): string {
  const whose = tool !== undefined ? `the result of ${toolRef(tool)}` : `\`${value}\``
  const listed = fields
    .slice(0, 10)
    .map((f) => `\`${f}\``)
    .join(', ')
  const has =
    fields.length > 0
      ? `it has ${listed}${fields.length > 10 ? ', …' : ''}`
      : `it is ${type.length > 60 ? `${type.slice(0, 57)}...` : type}`
  const mean = close.length > 0 ? `; did you mean ${close.map((c) => `\`${c}\``).join(' or ')}?` : '.'
  return `\`${field}\` is not a field of ${whose} (${has}), so it would be undefined${mean}`
}

/** `for (const x of r)` where r is an object: the lists it holds. */
export function notIterableHint(value: string, lists: readonly string[]): string {
  const fix =
    lists.length > 0 ? `iterate one of its lists: ${lists.map((l) => `\`for (const x of ${value}.${l})\``).join(' or ')}` : 'iterate a list'
  return `\`${value}\` is an object, not a list, so \`for…of\` over it throws a TypeError; ${fix}.`
}
