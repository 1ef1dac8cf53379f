/**
 * Which ECMAScript built-ins a program has: those of the V8 its sandbox runs on. The isolate child runs on
 * the host's own Node binary (and the offline Docker image copies it), so the Node line picks the lib
 * files the checker declares. Each line adds what its V8 ships, less what the lockdown removes: resizable
 * ArrayBuffers, `SharedArrayBuffer`'s growth and `Atomics.waitAsync` (es2024.arraybuffer and
 * es2024.sharedmemory stay out). `test/contract/builtins.test.ts` runs each probe in the real sandbox.
 */
import { words } from './normalise-rules.js'

/** V8 11 (Node 20) already has `String.prototype.isWellFormed`. */
const LINE_20 = ['lib.es2024.string.d.ts']
const LINE_22 = [
  ...LINE_20,
  ...words(
    'lib.es2024.collection.d.ts lib.es2024.object.d.ts lib.es2024.promise.d.ts lib.es2024.regexp.d.ts lib.esnext.array.d.ts lib.es2025.collection.d.ts lib.es2025.iterator.d.ts',
  ),
]
const LINE_24 = [
  ...LINE_22,
  ...words(
    'lib.es2025.float16.d.ts lib.es2025.promise.d.ts lib.es2025.regexp.d.ts lib.esnext.error.d.ts lib.esnext.disposable.d.ts lib.esnext.sharedmemory.d.ts',
  ),
]
const LINE_26 = [
  ...LINE_24,
  ...words('lib.esnext.collection.d.ts lib.esnext.typedarrays.d.ts lib.esnext.temporal.d.ts lib.esnext.date.d.ts'),
]

/** The Node line this process runs on (its major version). */
export const NODE_LINE = Number(process.versions.node.split('.')[0])

/** The lib files for a line: ES2023 and what each V8 brought past it. */
export function builtinLibs(line: number = NODE_LINE): string[] {
  const added = line >= 26 ? LINE_26 : line >= 24 ? LINE_24 : line >= 22 ? LINE_22 : LINE_20
  return ['lib.es2023.d.ts', ...added]
}

/** How the built-ins are named to the model: the edition whose new globals the line has. */
export function builtinsName(line: number = NODE_LINE): string {
  return line >= 24 ? 'ES2025' : line >= 22 ? 'ES2024' : 'ES2023'
}
