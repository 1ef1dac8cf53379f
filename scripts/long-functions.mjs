#!/usr/bin/env node
// `npm run lint:size`: no function in runtime/ is longer than a reader sees in one screen (80 lines).
// Counted with TypeScript's own parser, so a template string, a comment or an arrow in an argument list
// is measured as what it is. Usage: node scripts/long-functions.mjs [folder …] (default: runtime).
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'

const MAX_LINES = 80
const folders = process.argv.length > 2 ? process.argv.slice(2) : ['runtime']

/**
 * @param {string} dir
 * @returns {Generator<string>}
 */
function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* sources(path)
    else if (/\.(c|m)?tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path
  }
}

/**
 * A readable name for a function-like node: its own, its variable's, its property's, or `(anonymous)`.
 * @param {ts.SignatureDeclaration} node
 */
function nameOf(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  const parent = node.parent
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)))
    return parent.name.getText()
  return '(anonymous)'
}

/** @type {string[]} */
const long = []
for (const folder of folders) {
  for (const file of sources(folder)) {
    const text = readFileSync(file, 'utf8')
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
    /** @param {ts.Node} node */
    const visit = (node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line
        const lines = last - first + 1
        if (lines > MAX_LINES) long.push(`${relative('.', file)}:${first + 1} ${nameOf(node)} is ${lines} lines`)
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
}
if (long.length) {
  console.error(`functions over ${MAX_LINES} lines (split them into steps a reader sees in one screen):`)
  for (const l of long) console.error(`  ${l}`)
  process.exit(1)
}
