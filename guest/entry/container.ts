// The container's bundle: its value is `codeactBridge` (bridge/container.ts), the prelude inside it.
export { default } from '../bridge/container.js'
