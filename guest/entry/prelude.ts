// The isolate's prelude bundle: its value is `codeactPrelude` (run.ts), with the realm's globals installed.
import { installPrelude } from '../prelude.js'

export default installPrelude()
