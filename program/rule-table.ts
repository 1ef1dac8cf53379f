/**
 * The blocking rule as a table: every verdict the checker gives names one of these rows, and
 * docs/type-checking.md shows the same rows (test/docs/rule-table.test.ts keeps the two equal).
 * `blocked`: the run would certainly go wrong, so nothing runs; `noted`: it may work, so it runs and the note
 * follows the result; `dropped`: said nowhere. Pure data: no TypeScript here.
 */
export interface RuleRow {
  id: string
  /** The TypeScript codes (`TS2339`) or `codeact` for a check of codeact's own. */
  diagnostics: string
  verdict: 'blocked' | 'noted' | 'dropped'
  why: string
}

export const RULES = [
  { id: 'syntax', diagnostics: 'TS1xxx', verdict: 'blocked', why: 'the program cannot be compiled' },
  {
    id: 'always',
    diagnostics: 'TS2588, TS2451, TS2300, TS1308, TS2630, TS2632, TS2540',
    verdict: 'blocked',
    why: 'assigning a const or a read-only field, declaring a name twice, `await` in a plain function: a TypeError or SyntaxError',
  },
  {
    id: 'missing-name',
    diagnostics: 'TS2304, TS2552, TS2580, TS2591 …',
    verdict: 'blocked',
    why: 'a name used as a value that does not exist is a ReferenceError',
  },
  { id: 'missing-type', diagnostics: 'TS2304, TS2552 …', verdict: 'noted', why: 'a type name is erased by the compiler' },
  { id: 'unknown-tool', diagnostics: 'TS2339, TS7053', verdict: 'blocked', why: '`tools.nope` is not a function (ENOSYS)' },
  {
    id: 'promise-used',
    diagnostics: 'TS2339, TS2349, TS2362, TS2365, TS2322, TS2345 …',
    verdict: 'blocked',
    why: 'a Promise used as its value (a forgotten `await`) is never the value',
  },
  {
    id: 'promise-destructured',
    diagnostics: 'TS2339, TS2488',
    verdict: 'blocked',
    why: 'destructuring a Promise gives undefined fields; the call starts and nobody waits for it',
  },
  {
    id: 'closed-property',
    diagnostics: 'TS2339, TS2551',
    verdict: 'blocked',
    why: 'a field read or destructured from a typed tool result (or a string, number, boolean) that does not declare it is certainly undefined',
  },
  {
    id: 'through-missing',
    diagnostics: 'TS2339, TS2551, TS2550',
    verdict: 'blocked',
    why: 'calling or reading through a property a typed value lacks (`n.toFixedd()`, `r.totl.length`) is a TypeError',
  },
  {
    id: 'own-property',
    diagnostics: 'TS2339, TS2551, TS2550',
    verdict: 'noted',
    why: "the program's own objects may have gained the field (`s.total = 1` then `s.total`); a later lib's method may exist",
  },
  { id: 'property-write', diagnostics: 'TS2339', verdict: 'noted', why: 'writing a new field is plain JavaScript' },
  {
    id: 'untyped',
    diagnostics: 'TS18046, TS2571, any code on an `unknown`/`any` value',
    verdict: 'noted',
    why: 'a result without an output schema (or an open one) may be anything: its uses cannot be checked',
  },
  {
    id: 'untyped-write',
    diagnostics: 'TS2339',
    verdict: 'dropped',
    why: 'writing a field on `{}` (`const s = {}; s.total = 1`) is plain JavaScript',
  },
  {
    id: 'possibly-undefined',
    diagnostics: 'TS18047, TS18048, TS18049, TS2531, TS2532, TS2533, TS2722, TS2454',
    verdict: 'noted',
    why: 'the value may well be there at run time',
  },
  {
    id: 'json-parse-object',
    diagnostics: 'TS2345',
    verdict: 'blocked',
    why: '`JSON.parse` of an object parses "[object Object]": a SyntaxError every time',
  },
  {
    id: 'not-iterable',
    diagnostics: 'TS2488, TS2495, TS2461, TS2548, TS2549',
    verdict: 'blocked',
    why: '`for…of` or `[a, b] =` over a typed object that is not a list is a TypeError',
  },
  {
    id: 'maybe-iterable',
    diagnostics: 'TS2488, TS2495, TS2461, TS2548, TS2549',
    verdict: 'noted',
    why: 'a value with an index signature or of the program’s own may hold an iterator at run time',
  },
  {
    id: 'tool-callback',
    diagnostics: 'TS2345, TS2769',
    verdict: 'blocked',
    why: 'a tool passed as a callback (`ids.map(tools.get_order)`) is called with (value, index, array), not its arguments object',
  },
  {
    id: 'not-callable',
    diagnostics: 'TS2349, TS2351',
    verdict: 'blocked',
    why: 'calling a typed value that is not a function is a TypeError',
  },
  {
    id: 'tool-argument',
    diagnostics: 'TS2322, TS2345, TS2353, TS2561, TS2741 …',
    verdict: 'blocked',
    why: 'a tool argument no value of its type could make valid (missing required field, excess field of a closed schema, literal outside an enum) fails validation (EINVAL), maybe after earlier calls had their effects',
  },
  {
    id: 'too-few-arguments',
    diagnostics: 'TS2554, TS2555',
    verdict: 'blocked',
    why: 'a tool that needs fields called without them fails validation',
  },
  {
    id: 'widened-argument',
    diagnostics: 'TS2322, TS2345 …',
    verdict: 'noted',
    why: 'a widened value (`string` where a tool wants "US" | "DE") is validated when the call is made',
  },
  {
    id: 'own-annotation',
    diagnostics: 'TS2322, TS2345, TS2554 … outside tool calls',
    verdict: 'noted',
    why: "the program's own annotations are erased: nothing checks them at run time",
  },
  { id: 'implicit-any', diagnostics: 'TS7xxx', verdict: 'dropped', why: 'untyped helpers are plain JavaScript' },
  { id: 'other', diagnostics: 'any other TS code', verdict: 'noted', why: 'not known to fail' },
  {
    id: 'constraint',
    diagnostics: 'codeact',
    verdict: 'blocked',
    why: 'a literal argument (or a const holding one) breaks a constraint the SDK text shows (@minimum, @maximum, @exclusiveMinimum, @exclusiveMaximum, @integer, @multipleOf, @pattern, @minLength, @maxLength, @minItems, @maxItems, @uniqueItems, @format): the call fails validation',
  },
  {
    id: 'undeclared-argument',
    diagnostics: 'codeact',
    verdict: 'noted',
    why: 'a field an open schema does not declare is allowed, but the tool may ignore it',
  },
] as const satisfies readonly RuleRow[]

export type RuleId = (typeof RULES)[number]['id']

/** Codes for codeact's own checks (TypeScript's stop below 20,000); 2,000 and up keeps them apart from syntax. */
export const CODEACT_CODES = { constraint: 90001, 'undeclared-argument': 90002 } as const
