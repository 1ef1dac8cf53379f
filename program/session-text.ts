/**
 * A session program's text (issue 15): its top-level declarations become assignments to the realm's
 * globals, so the next run of the session sees them, live, like the Node REPL. Applied to the normalised
 * body (program/normalise.ts: fences, `export default`, a lone `main`, the last expression returned), in the
 * checker's thread; the type check runs on the text before this rewrite (program/session-types.ts).
 *
 *   const/let/var a = 1, { b, c: [d = 2, ...e] } = o     ;(    a = 1, { b, c: [d = 2, ...e] } = o)
 *   let x: number                                        ;( x         = undefined)
 *   function f(a) { … }                                  function __codeact_fn_f() { return { f: function  (a) { … } }.f }
 *   class A extends B { … }                              A = class A extends B { … };
 *   enum E { … }                                         E = (() => { enum E { … }; return E })();
 *
 * and one prologue at the start of line 1 that makes each name a property of the global object if it is not
 * one yet (a strict program cannot assign an undeclared name) and assigns the cell's functions there first,
 * so they are callable before their line, as in JavaScript. Keywords and annotations are overwritten with
 * spaces, so every line stays where it was and most columns too (stack lines and diagnostics use the user's
 * positions); only a function's, class's or enum's first line (and line 1) move right.
 *
 * No local binding is left for a rewritten name, so every reference to it — in this run and in closures
 * made in earlier runs — reads the global: a later run's redeclaration is seen everywhere. A function is an
 * anonymous function expression named by its property key (`f.name === 'f'`), so its own body calls the
 * global `f` too (a class keeps its inner name, as a class declaration has one).
 *
 * Left as they are, local to the run: names the sandbox owns (`tools`, `ToolCallError`, `console`, the
 * standard and safe globals: a cell's own `const URL = …` shadows the real one for that run only, and the
 * next run has the real one again), `using` declarations, namespaces, decorated classes, `declare`d
 * (ambient) names, and everything in an inner scope (blocks, loops, functions: a `var` inside a block too).
 * `const` is not enforced at run time across runs (the type check does: program/session-types.ts).
 */
import type TS from 'typescript'
import { words } from './normalise-rules.js'
import { isAmbient, parseErrorsOf, parseProgramBody, ts } from './ts-host.js'

export type SessionBindingKind = 'const' | 'let' | 'var' | 'function' | 'class' | 'enum'

export interface SessionBinding {
  name: string
  kind: SessionBindingKind
}

export interface SessionRewrite {
  /** The body with its top-level declarations made global; the same line count. */
  text: string
  /** The names the cell binds in the session, in order of first declaration. */
  bindings: SessionBinding[]
  /** Top-level names that stay local to this run (the sandbox's own, or a kind not carried over). */
  local: string[]
}

/**
 * Globals of every sandbox (the language's, the sandbox's own, a container's `process` and `Buffer`): never
 * rebound by a session, so a cell cannot take them from the next (the prelude's machinery, the intrinsics).
 * Other names a realm may have (`crypto`, `performance` on Docker) are the user's to rebind, as in a REPL.
 */
export const SANDBOX_OWNED_NAMES: ReadonlySet<string> = new Set(
  words(`
  tools ToolCallError console globalThis __proto__ undefined NaN Infinity eval arguments Object Function Array
  Number Boolean String Symbol BigInt Date Promise RegExp Error AggregateError EvalError RangeError
  ReferenceError SyntaxError TypeError URIError JSON Math Intl Reflect Proxy Map Set WeakMap WeakSet WeakRef
  FinalizationRegistry ArrayBuffer SharedArrayBuffer DataView Atomics Int8Array Uint8Array Uint8ClampedArray
  Int16Array Uint16Array Int32Array Uint32Array Float32Array Float64Array BigInt64Array BigUint64Array
  Float16Array Iterator SuppressedError DisposableStack AsyncDisposableStack parseInt parseFloat isNaN isFinite
  encodeURI encodeURIComponent decodeURI decodeURIComponent escape unescape setTimeout clearTimeout setInterval
  clearInterval queueMicrotask structuredClone atob btoa URL URLSearchParams TextEncoder TextDecoder WebAssembly
  process Buffer global setImmediate clearImmediate
`),
)

interface Edit {
  start: number
  end: number
  text: string
}

const FUNCTION_PREFIX = '__codeact_fn_'
const MARK = 'session bindings made global'

/** Rewrites a normalised session body (see the file's comment); a text that does not parse is returned as it is. */
export function rewriteSessionProgram(body: string): SessionRewrite {
  let file: TS.SourceFile
  try {
    file = parseProgramBody(body)
  } catch {
    return { text: body, bindings: [], local: [] }
  }
  if (parseErrorsOf(file).length > 0) return { text: body, bindings: [], local: [] }

  const edits: Edit[] = []
  const bindings = new Map<string, SessionBindingKind>()
  const local: string[] = []
  const hoisted: string[] = []
  const bind = (name: string, kind: SessionBindingKind) => {
    if (!bindings.has(name)) bindings.set(name, kind)
  }
  for (const s of file.statements) {
    if (isAmbient(s)) continue
    if (ts.isVariableStatement(s)) variableEdits(file, s, edits, bind, local)
    else if (ts.isFunctionDeclaration(s) && s.name) {
      const name = s.name.text
      if (SANDBOX_OWNED_NAMES.has(name)) local.push(name)
      else if (!s.body)
        edits.push(blank(file.text, s.getStart(file), s.end)) // an overload signature
      else {
        edits.push({ start: s.getStart(file), end: s.getStart(file), text: `function ${FUNCTION_PREFIX}${name}() { return { ${name}: ` })
        edits.push(blank(file.text, s.name.getStart(file), s.name.end))
        edits.push({ start: s.end, end: s.end, text: ` }.${name} }` })
        if (!hoisted.includes(name)) hoisted.push(name)
        bind(name, 'function')
      }
    } else if (ts.isClassDeclaration(s) && s.name) {
      const name = s.name.text
      const decorated = (ts.getDecorators(s) ?? []).length > 0
      const keyword = s.getChildren(file).find((c) => c.kind === ts.SyntaxKind.ClassKeyword)
      if (SANDBOX_OWNED_NAMES.has(name) || decorated || keyword === undefined) local.push(name)
      else {
        for (const m of ts.getModifiers(s) ?? []) edits.push(blank(file.text, m.getStart(file), m.end)) // `abstract`
        const at = keyword.getStart(file)
        edits.push({ start: at, end: at, text: `${name} = ` })
        // The class keeps its own inner name (a static block runs before the assignment), but esbuild renames
        // it when the body refers to it (`P.count++` made `P.name` 'P2'): the name is set back after.
        const rename = refersTo(s, name) && !hasStaticName(s)
        edits.push({
          start: s.end,
          end: s.end,
          text: rename ? `; Object.defineProperty(${name}, 'name', { value: ${JSON.stringify(name)} });` : ';',
        })
        bind(name, 'class')
      }
    } else if (ts.isEnumDeclaration(s)) {
      const name = s.name.text
      if (SANDBOX_OWNED_NAMES.has(name)) local.push(name)
      else {
        edits.push({ start: s.getStart(file), end: s.getStart(file), text: `${name} = (() => { ` })
        edits.push({ start: s.end, end: s.end, text: `; return ${name} })();` })
        bind(name, 'enum')
      }
    } else if (ts.isModuleDeclaration(s) && ts.isIdentifier(s.name)) local.push(s.name.text)
  }
  if (bindings.size === 0) return { text: body, bindings: [], local }
  const names = [...bindings.keys()]
  const prologue =
    `for (const __codeact_name of ${JSON.stringify(names)}) if (!(__codeact_name in globalThis)) globalThis[__codeact_name] = undefined; ` +
    hoisted.map((n) => `${n} = ${FUNCTION_PREFIX}${n}();`).join(' ') +
    (hoisted.length ? ' ' : '')
  return { text: prologue + applyEdits(body, edits), bindings: names.map((name) => ({ name, kind: bindings.get(name)! })), local }
}

/** What the rewrite adds to a NormalisedProgram's `changes`. */
export const SESSION_CHANGE = MARK

function variableEdits(
  file: TS.SourceFile,
  s: TS.VariableStatement,
  edits: Edit[],
  bind: (name: string, kind: SessionBindingKind) => void,
  local: string[],
): void {
  const list = s.declarationList
  const names = list.declarations.flatMap((d) => boundNames(d.name))
  const flags = list.flags
  // `using` disposes at the end of its scope: it stays the run's own.
  if (flags & ts.NodeFlags.Using || names.some((n) => SANDBOX_OWNED_NAMES.has(n)) || list.declarations.length === 0) {
    local.push(...names)
    return
  }
  const kind: SessionBindingKind = flags & ts.NodeFlags.Const ? 'const' : flags & ts.NodeFlags.Let ? 'let' : 'var'
  const start = list.getStart(file)
  // `;(` replaces the keyword: a pattern at a statement's start must be parenthesised, and the `;` keeps a
  // line starting with `(` or `[` from continuing the statement before it.
  edits.push({ start, end: start + kind.length, text: ';('.padEnd(kind.length, ' ') })
  for (const d of list.declarations) {
    const annotated = d.type?.end ?? d.exclamationToken?.end
    if (annotated !== undefined) edits.push(blank(file.text, d.name.end, annotated))
    if (d.initializer === undefined && kind !== 'var') {
      const at = annotated ?? d.name.end
      edits.push({ start: at, end: at, text: ' = undefined' })
    }
  }
  const last = list.declarations[list.declarations.length - 1]!
  edits.push({ start: last.end, end: last.end, text: ')' })
  for (const n of names) bind(n, kind)
}

/** Whether a class's body mentions `name` (as an identifier). */
function refersTo(s: TS.ClassDeclaration, name: string): boolean {
  const visit = (n: TS.Node): boolean => (ts.isIdentifier(n) && n.text === name) || (ts.forEachChild(n, visit) ?? false)
  return s.members.some(visit) || (s.heritageClauses ?? []).some(visit)
}

/** A `static name` member: the class sets its own `name`. */
function hasStaticName(s: TS.ClassDeclaration): boolean {
  return s.members.some(
    (m) =>
      (ts.getModifiers(m as TS.HasModifiers) ?? []).some((x) => x.kind === ts.SyntaxKind.StaticKeyword) &&
      m.name !== undefined &&
      ts.isIdentifier(m.name) &&
      m.name.text === 'name',
  )
}

/** Every identifier a binding name or pattern binds, in order. */
export function boundNames(name: TS.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text]
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : boundNames(e.name)))
}

/** Spaces over [start, end), newlines kept (so lines stay put). */
function blank(text: string, start: number, end: number): Edit {
  return { start, end, text: text.slice(start, end).replace(/[^\n]/g, ' ') }
}

function applyEdits(text: string, edits: Edit[]): string {
  let out = text
  // Stable for equal starts: an insertion and a replacement at one place keep their order of creation.
  const ordered = edits.map((e, i) => ({ e, i })).sort((a, b) => b.e.start - a.e.start || b.i - a.i)
  for (const { e } of ordered) out = out.slice(0, e.start) + e.text + out.slice(e.end)
  return out
}
