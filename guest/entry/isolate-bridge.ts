// The isolate's bridge bundle: its value is `codeactGlue` (bridge/isolate.ts).
export { default } from '../bridge/isolate.js'
