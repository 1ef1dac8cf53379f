/** The wrapper breakouts and the boundary's fuzz pieces, shared by the attacks on each way of compiling. */
import vm from 'node:vm'

export const RAN = 'globalThis.__ran = (globalThis.__ran || 0) + 1'

/** Bodies that try to close the function and run `RAN` at the script's top level. */
export const BREAKOUTS = [
  `}); ${RAN}; (async function () {`,
  `})\n${RAN}\n;(async function () {`,
  `}) ; ${RAN} ; (function () {\n`,
  `/}/; }); ${RAN}; (async function () { /{/`,
  `const r = /[/}]/ }); ${RAN}; (async function () { /`,
  `// \u2028 }); ${RAN}; (async function () {`,
  `// \u2029 }); ${RAN}; (async function () {`,
  `/* */ }); ${RAN}; (async function () { /* */`,
  `*/ }); ${RAN}; (async function () { /*`,
  `\`\${'}'}\`; }); ${RAN}; (async function () {`,
  `\`); ${RAN}; (\``,
  `'\\\n}); ${RAN}; (async function () {'`,
  `<!-- }); ${RAN}; (async function () {`,
  `--> }); ${RAN}; (async function () {`,
  `x\n--> }); ${RAN}; (async function () {`,
  `</script>}); ${RAN}; (async function () {<script>`,
  `}`,
  `}}); ${RAN}; (async function () {{`,
  `return 1 }); ${RAN}; (async function () { return 2`,
  `}, ${RAN}, function () {`,
  `})(); ${RAN}; (async function () {`,
  `}); ${RAN}; export default (async function () {`,
  `#!/bin/sh\n}); ${RAN}; (async function () {`,
  `} // \r }); ${RAN}; (async function () {`,
  `\u0000}); ${RAN}; (async function () {`,
  `namespace A {} }); ${RAN}; (async function () { namespace B {}`,
  `"use strict" }); ${RAN}; (async function () {`,
  `class A { static { }); ${RAN}; (async function () { } }`,
  `}); ${RAN}; (async function () {\n\`\`\`ts\n`,
  '```ts\n}); ' + RAN + '; (async function () {\n```',
]

export const BOUNDARY_PIECES = [
  '}',
  ')',
  '{',
  '(',
  ';',
  '*/',
  '/*',
  '//',
  '`',
  '${',
  "'",
  '"',
  '/',
  '/}/',
  '\\',
  '\n',
  '\u2028',
  '\u2029',
  '\r',
  '<!--',
  '-->',
  '</script>',
  'async function () {',
  'function',
  '=>',
  ',',
  RAN,
  `}); ${RAN}; (async function () {`,
  'return',
  'await',
  '#',
]

/** Evaluates compiled JS as a sandbox does (a script in a fresh realm): it must only create a function. */
export function evaluateInert(js: string): { ran: number; type: string } {
  const context = vm.createContext({})
  const value: unknown = vm.runInContext(js, context, { filename: 'program.js', timeout: 1000 })
  return { ran: Number(vm.runInContext('globalThis.__ran || 0', context)), type: typeof value }
}
