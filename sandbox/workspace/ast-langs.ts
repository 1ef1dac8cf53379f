/**
 * The languages `ast_grep` parses (those @ast-grep/napi ships built in) and which files are which, by
 * extension, as the ast-grep CLI decides it — so a rule picks the same files in both.
 */
export const AST_LANGS = ['typescript', 'tsx', 'javascript', 'html', 'css'] as const
export type AstLang = (typeof AST_LANGS)[number]

const EXTENSIONS: Readonly<Record<AstLang, readonly string[]>> = {
  typescript: ['ts', 'cts', 'mts'],
  tsx: ['tsx'],
  javascript: ['js', 'cjs', 'mjs', 'jsx'],
  html: ['html', 'htm', 'xhtml'],
  css: ['css'],
}

/** Names a model may use for a language (`ts`, `TypeScript` …), lower-cased. */
const ALIASES: Readonly<Record<string, AstLang>> = {
  ts: 'typescript',
  typescript: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  jsx: 'javascript',
  javascript: 'javascript',
  html: 'html',
  css: 'css',
}

export function langNamed(name: string): AstLang | undefined {
  return ALIASES[name.toLowerCase()]
}

/** The language of a file by its extension; undefined for a file none of them reads. */
export function langOf(path: string): AstLang | undefined {
  const ext = /\.([^./]+)$/.exec(path)?.[1]?.toLowerCase()
  if (ext === undefined) return undefined
  return AST_LANGS.find((l) => EXTENSIONS[l].includes(ext))
}

/** The glob of every file of these languages, for a call that names no paths. */
export function defaultGlob(langs: readonly AstLang[]): string {
  return `**/*.{${langs.flatMap((l) => EXTENSIONS[l]).join(',')}}`
}
