// The isolate's lockdown bundle: run first in each fresh context (guest/lockdown.ts); it has no value.
import { lockdown } from '../lockdown.js'

export default lockdown(globalThis)
