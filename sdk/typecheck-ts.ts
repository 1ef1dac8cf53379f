/**
 * Everything of the checker's thread that stands on TypeScript (sdk/typecheck-worker.ts loads it on the
 * first request that needs it: a type check or a session cell). A thread that only prepares check-off
 * programs answers them from sdk/lite/ and never loads this module, nor TypeScript.
 */
export { nodeAmbientFiles } from './node-types.js'
export { fastCompile } from './program-fast-ts.js'
export { checkWrappedShape, parseWrappedShape, topLevelNamespaceSpans } from './program-shape.js'
export { rewriteSessionProgram, SESSION_CHANGE } from './session-text.js'
export { untypedDeclarations } from './session-types.js'
export { createTypeChecker } from './typecheck.js'
export { normaliseSafely } from './typecheck-normalise.js'
