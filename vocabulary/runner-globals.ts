/**
 * The Node globals a program has in a container (sandbox/docker/runner/realm.ts copies each from the runner's
 * own realm into the program's), besides ECMAScript's, `require`, `global` and what the guest defines. The
 * Docker checker declares these of Node's types and no other (program/node-types.ts): one list, so what is
 * declared is what the realm has. `test/contract/globals.test.ts` compares both with a real container.
 */
export const RUNNER_NODE_GLOBALS: readonly string[] = [
  'process',
  'Buffer',
  'setTimeout',
  'setInterval',
  'setImmediate',
  'clearTimeout',
  'clearInterval',
  'clearImmediate',
  'queueMicrotask',
  'fetch',
  'structuredClone',
  'performance',
  'crypto',
  'URL',
  'URLSearchParams',
  'TextEncoder',
  'TextDecoder',
  'AbortController',
  'AbortSignal',
  'atob',
  'btoa',
  'Blob',
  'EventTarget',
  'Event',
  'MessageChannel',
  'MessagePort',
  'BroadcastChannel',
  'Headers',
  'Request',
  'Response',
  'FormData',
  'DOMException',
]
