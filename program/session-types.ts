/**
 * Typed across turns (issue 15): a session cell is checked with the session's earlier bindings declared, and
 * its own top-level bindings are written down for the next cell. Runs in the checker's thread (typecheck.ts).
 *
 * The declarations are TypeScript text, one statement per binding:
 *   declare const data: { rows: { id: number; name: string; }[]; }     a `const` (stays const: assigning it blocks)
 *   declare let count: number                                         a `let` keeps its type (a string assigned later is reported)
 *   declare function fmt(x: any): string                              each call signature of a function
 *   class Point { … } / interface Row { … } / type Id = … / enum E { … }   verbatim (printing a type cannot express them)
 * A later cell's declaration of a name replaces every earlier statement declaring it (values and types are
 * separate namespaces, as in TypeScript; a class or an enum is both).
 *
 * They are put before the wrapped program as module-level declarations (the resident checker stays warm: no
 * new Program per turn), the cell's own declarations shadow them, and nothing reported inside them reaches
 * the user. A printed type that does not stand on its own (a type local to a function, one that does not
 * parse) is `any` instead, so an unprintable type never blocks a later cell. Names the sandbox owns and the
 * kinds that stay local to a run (program/session-text.ts) are not carried.
 */
import type TS from 'typescript'
import { boundNames, SANDBOX_OWNED_NAMES, type SessionBinding } from './session-text.js'
import { isAmbient, parseErrorsOf, ts } from './ts-host.js'
import { isClosed, SDK_MARK } from './type-shapes.js'

/** One statement of the declarations and the names it declares (`v:x` a value, `t:x` a type). */
interface Entry {
  text: string
  keys: string[]
  /**
   * This cell's printed declaration (name, kind): when it does not check by itself it is replaced by
   * `looser` (a function's signatures returning `any`) if that checks, else by its `any` form.
   */
  printed?: { name: string; kind: SessionBinding['kind']; looser?: string }
}

/** What a cell is checked with: the earlier declarations as text to put before the wrapped program. */
export interface SessionContext {
  prefix: string
  /** Lines the prefix adds before the wrapper's head. */
  lines: number
  entries: Entry[]
}

const FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.AllowUniqueESSymbolType
/** Names the normaliser makes for `import … from 'node:…'` (program/normalise.ts): run-time plumbing, not the user's. */
const INTERNAL = /^__codeact_/

/** Contexts by declarations text, newest last: a session's next cell starts from what its last one answered. */
const contexts = new Map<string, SessionContext>()
const MAX_CONTEXTS = 32

export function sessionContext(declarations: string): SessionContext {
  let context = contexts.get(declarations)
  if (context !== undefined) contexts.delete(declarations)
  else {
    const entries = entriesOf(declarations)
    const prefix = entries.map((e) => e.text).join('\n')
    context = { prefix: prefix === '' ? '' : `${prefix}\n`, lines: prefix === '' ? 0 : prefix.split('\n').length, entries }
  }
  contexts.set(declarations, context)
  for (const key of contexts.keys()) if (contexts.size > MAX_CONTEXTS) contexts.delete(key)
  return context
}

/** The earlier declarations with every name of `bindings` replaced by an untyped one (the cell was not checked). */
export function untypedDeclarations(declarations: string, bindings: readonly SessionBinding[]): string {
  const next = bindings.filter((b) => !INTERNAL.test(b.name)).map((b) => untyped(b.name, b.kind))
  return merge(entriesOf(declarations), next)
}

/**
 * The declarations after a checked cell: `body` is the wrapper function's body in `file` (the checked text),
 * `problemLines(text)` the 0-based lines of `text` (declarations alone) that do not check.
 */
export function emitDeclarations(
  context: SessionContext,
  file: TS.SourceFile,
  body: readonly TS.Statement[],
  checker: TS.TypeChecker,
  problemLines: (text: string) => ReadonlySet<number>,
  globalTypes: ReadonlySet<string>,
): string {
  let next: Entry[] = []
  const modules = importedModules(body)
  for (const s of body) {
    try {
      next.push(...declare(s, file, checker, modules))
    } catch {
      // The checker's own failure on one statement: its names go untyped, the others are still printed.
      for (const key of keysOf(s)) if (key.startsWith('v:')) next.push(untyped(key.slice(2), 'var'))
    }
  }
  next = parsedEntries(next)
  // Nothing new: the earlier declarations checked when they were written.
  if (next.length === 0) return context.entries.map((e) => e.text).join('\n')
  const kept = context.entries.filter((e) => !e.keys.some((k) => next.some((n) => n.keys.includes(k))))
  const all = [...kept, ...next]
  // Checking the declarations by themselves costs a check: skipped when every name a printed type uses
  // is one that resolves at the top level (the lib's, the SDK's, the session's own types).
  const types = new Set(globalTypes)
  for (const e of all) for (const k of e.keys) if (k.startsWith('t:')) types.add(k.slice(2))
  if (next.every((e) => e.printed === undefined || standsAlone(e.text, types))) return all.map((e) => e.text).join('\n')
  // Two rounds at most: a failing printed entry gets its looser form, then its `any` form.
  for (let round = 0; round < 2; round++) {
    const problems = problemLines(all.map((e) => e.text).join('\n'))
    if (problems.size === 0) break
    let line = 0
    for (let i = 0; i < all.length; i++) {
      const entry = all[i]!
      const count = entry.text.split('\n').length
      let bad = false
      for (let l = line; l < line + count; l++) if (problems.has(l)) bad = true
      line += count
      if (!bad || !entry.printed) continue
      const { name, kind, looser } = entry.printed
      all[i] = round === 0 && looser !== undefined && parsesAsLines(looser) ? printed(looser, name, kind) : untyped(name, kind)
    }
  }
  return all.map((e) => e.text).join('\n')
}

/**
 * Whether a printed declaration can only mean what it says at the top level: every type name it uses is in
 * `types`, and it has no `typeof x` or `import("…")` (a value's or a module's name, resolved elsewhere).
 */
function standsAlone(text: string, types: ReadonlySet<string>): boolean {
  const scanner = ts.createScanner(ts.ScriptTarget.ES2022, true, ts.LanguageVariant.Standard, text)
  const K = ts.SyntaxKind
  const declaring = new Set([K.ConstKeyword, K.LetKeyword, K.VarKeyword, K.FunctionKeyword])
  let previous = K.Unknown
  for (let token = scanner.scan(); token !== K.EndOfFileToken; token = scanner.scan()) {
    if (token === K.TypeOfKeyword || token === K.ImportKeyword) return false
    // The declared name itself (`declare const x`, each `declare function f` of an overload) is not a type.
    if (token === K.Identifier && !declaring.has(previous)) {
      const name = scanner.getTokenValue()
      const at = scanner.getTokenEnd()
      const rest = text.slice(at).trimStart()
      // A property or parameter name (`rows:`, `n?:`, `...args:`), or a member after a dot, is not a type.
      const isMember = rest.startsWith(':') || rest.startsWith('?:') || previous === K.DotToken
      if (!isMember && !types.has(name)) return false
    }
    previous = token
  }
  return true
}

/** The wrapper function's body statements in a checked file (the last statement is the wrapper). */
export function wrapperBody(file: TS.SourceFile): readonly TS.Statement[] {
  const last = file.statements[file.statements.length - 1]
  if (!last || !ts.isExpressionStatement(last) || !ts.isParenthesizedExpression(last.expression)) return []
  const fn = last.expression.expression
  return ts.isFunctionExpression(fn) ? fn.body.statements : []
}

/** `__codeact_node_fs = await import("node:fs")` (the normaliser's rewrite of an import): namespace name → module. */
function importedModules(body: readonly TS.Statement[]): Map<string, string> {
  const modules = new Map<string, string>()
  for (const s of body) {
    if (!ts.isVariableStatement(s)) continue
    for (const d of s.declarationList.declarations) {
      const init = d.initializer
      if (!ts.isIdentifier(d.name) || !INTERNAL.test(d.name.text) || !init || !ts.isAwaitExpression(init)) continue
      const call = init.expression
      const spec = ts.isCallExpression(call) && call.expression.kind === ts.SyntaxKind.ImportKeyword ? call.arguments[0] : undefined
      if (spec && ts.isStringLiteral(spec)) modules.set(d.name.text, spec.text)
    }
  }
  return modules
}

/**
 * What an imported name is, as a type query on its module (`typeof import("node:fs").readFileSync`): the
 * checker would print the value's type, which for a module's overloads does not stand on its own.
 */
function importedName(d: TS.VariableDeclaration, id: TS.Identifier, modules: ReadonlyMap<string, string>): string | undefined {
  const init = d.initializer
  if (init === undefined) return undefined
  const ns = ts.isIdentifier(init)
    ? init
    : ts.isPropertyAccessExpression(init) && ts.isIdentifier(init.expression)
      ? init.expression
      : undefined
  const spec = ns && modules.get(ns.text)
  if (spec === undefined) return undefined
  const module = `typeof import(${JSON.stringify(spec)})`
  // A Node builtin's default export is its module object (what the types declare as the module itself).
  if (ts.isPropertyAccessExpression(init)) return ts.isIdentifier(d.name) && init.name.text === 'default' ? module : undefined
  if (ts.isIdentifier(d.name)) return module
  const element = id.parent
  if (!ts.isBindingElement(element) || element.parent !== d.name || !ts.isObjectBindingPattern(d.name) || element.dotDotDotToken)
    return undefined
  const key = element.propertyName ?? element.name
  return ts.isIdentifier(key) ? `${module}.${key.text}` : undefined
}

function declare(s: TS.Statement, file: TS.SourceFile, checker: TS.TypeChecker, modules: ReadonlyMap<string, string>): Entry[] {
  const verbatim = (): Entry[] => {
    const keys = keysOf(s).filter((k) => !SANDBOX_OWNED_NAMES.has(k.slice(2)))
    return keys.length ? [{ text: s.getText(file), keys }] : []
  }
  if (isAmbient(s)) return verbatim()
  if (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s) || ts.isEnumDeclaration(s)) return verbatim()
  if (ts.isClassDeclaration(s)) return s.name && (ts.getDecorators(s) ?? []).length === 0 ? verbatim() : []
  if (ts.isVariableStatement(s)) {
    const list = s.declarationList
    if (list.flags & ts.NodeFlags.Using) return []
    const kind = list.flags & ts.NodeFlags.Const ? 'const' : list.flags & ts.NodeFlags.Let ? 'let' : 'var'
    const ids = list.declarations.flatMap((d) => identifiers(d.name).map((id) => ({ d, id })))
    // The rewrite leaves the whole statement local when it binds a name the sandbox owns.
    if (ids.some(({ id }) => SANDBOX_OWNED_NAMES.has(id.text))) return []
    return ids
      .filter(({ id }) => !INTERNAL.test(id.text))
      .map(({ d, id }) => {
        const imported = modules.size > 0 ? importedName(d, id, modules) : undefined
        return imported ? printed(`declare ${kind} ${id.text}: ${imported}`, id.text, kind) : printedValue(id, kind, checker)
      })
  }
  if (ts.isFunctionDeclaration(s) && s.name && s.body && !SANDBOX_OWNED_NAMES.has(s.name.text)) {
    const name = s.name.text
    const symbol = checker.getSymbolAtLocation(s.name)
    const signatures = symbol ? checker.getTypeOfSymbolAtLocation(symbol, s.name).getCallSignatures() : []
    if (signatures.length === 0) return [untyped(name, 'function')]
    const text = signatures.map((sig) => `declare function ${name}${checker.signatureToString(sig, undefined, FLAGS)}`).join('\n')
    const looser = signatures.map((sig) => `declare function ${name}${parametersText(sig, s, checker)}: any`).join('\n')
    const entry = printed(text, name, 'function')
    return [entry.printed ? { ...entry, printed: { ...entry.printed, looser } } : entry]
  }
  return []
}

/** A signature's parameter list, `(a: number, b?: string, ...rest: any[])` (for its return type to be dropped). */
function parametersText(sig: TS.Signature, at: TS.Node, checker: TS.TypeChecker): string {
  const params = sig.getParameters().map((p) => {
    const decl = p.valueDeclaration
    const rest = decl !== undefined && ts.isParameter(decl) && decl.dotDotDotToken !== undefined
    const optional = decl !== undefined && ts.isParameter(decl) && (decl.questionToken !== undefined || decl.initializer !== undefined)
    const type = checker.typeToString(checker.getTypeOfSymbolAtLocation(p, at), undefined, FLAGS)
    return `${rest ? '...' : ''}${p.getName()}${optional && !rest ? '?' : ''}: ${type}`
  })
  return `(${params.join(', ')})`
}

function printedValue(id: TS.Identifier, kind: 'const' | 'let' | 'var', checker: TS.TypeChecker): Entry {
  const symbol = checker.getSymbolAtLocation(id)
  if (symbol === undefined) return untyped(id.text, kind)
  const type = checker.getTypeOfSymbolAtLocation(symbol, id)
  // A typed tool result stays closed in later cells: a field it lacks blocks there too (type-shapes.ts).
  const text = checker.typeToString(type, undefined, FLAGS)
  const mark = text.includes('{') && isClosed(type, checker) ? `${SDK_MARK} ` : ''
  return printed(`declare ${kind} ${id.text}: ${mark}${text}`, id.text, kind)
}

/** A printed declaration (checked to parse by `parsed`). */
function printed(text: string, name: string, kind: SessionBinding['kind']): Entry {
  return { text, keys: [`v:${name}`], printed: { name, kind } }
}

/** Whether texts parse as exactly their lines' statements (one per line: a printed type is one line). */
function parsesAsLines(text: string): boolean {
  const file = ts.createSourceFile('entries.ts', text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS)
  return parseErrorsOf(file).length === 0 && file.statements.length === text.split('\n').length
}

/** The printed entries that do not parse as what they declare are untyped instead (one parse for all when they do). */
function parsedEntries(entries: Entry[]): Entry[] {
  const printedText = entries.filter((e) => e.printed).map((e) => e.text)
  if (printedText.length === 0 || parsesAsLines(printedText.join('\n'))) return entries
  return entries.map((e) => (e.printed && !parsesAsLines(e.text) ? untyped(e.printed.name, e.printed.kind) : e))
}

function untyped(name: string, kind: SessionBinding['kind']): Entry {
  if (kind === 'function') return { text: `declare function ${name}(...args: any[]): any`, keys: [`v:${name}`] }
  const declared = kind === 'const' || kind === 'let' ? kind : 'var'
  return { text: `declare ${declared} ${name}: any`, keys: [`v:${name}`] }
}

function merge(previous: readonly Entry[], next: readonly Entry[]): string {
  const kept = previous.filter((e) => !e.keys.some((k) => next.some((n) => n.keys.includes(k))))
  return [...kept, ...next].map((e) => e.text).join('\n')
}

/** The statements of a declarations text; a text that does not parse is dropped whole (never half-read). */
function entriesOf(declarations: string): Entry[] {
  if (declarations.trim() === '') return []
  const file = ts.createSourceFile('session.d.ts', declarations, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS)
  if (parseErrorsOf(file).length > 0) return []
  return file.statements.map((s) => ({ text: s.getText(file), keys: keysOf(s) }))
}

function keysOf(s: TS.Statement): string[] {
  const both = (name: string) => [`v:${name}`, `t:${name}`]
  if (ts.isVariableStatement(s)) return s.declarationList.declarations.flatMap((d) => boundNames(d.name)).map((n) => `v:${n}`)
  if (ts.isFunctionDeclaration(s)) return s.name ? [`v:${s.name.text}`] : []
  if (ts.isClassDeclaration(s)) return s.name ? both(s.name.text) : []
  if (ts.isEnumDeclaration(s) || ts.isModuleDeclaration(s)) return ts.isIdentifier(s.name) ? both(s.name.text) : []
  if (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) return [`t:${s.name.text}`]
  return []
}

function identifiers(name: TS.BindingName): TS.Identifier[] {
  if (ts.isIdentifier(name)) return [name]
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : identifiers(e.name)))
}
