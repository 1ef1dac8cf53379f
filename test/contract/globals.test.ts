/**
 * The SDK declares what the sandbox has, and nothing it lacks: the globals, `console`'s methods, `tools`' and
 * the standard namespaces' members, read in a real run (check off) and from the checker's own declarations
 * (the same lib, SDK text and ambient files a checked run uses), compared both ways on each backend. A name
 * the sandbox has but the SDK lacks refuses a valid program (`console.table` did); one the SDK declares but
 * the sandbox lacks lets a program pass the check and fail at run time (`ReadableStream` in a container did).
 *
 * The Docker part runs where the suites run Docker (`CODEACT_DOCKER=1`), on the image `CODEACT_IMAGE` names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type TS from 'typescript'
import { createRuntime, type Runtime } from '../../runtime/create-runtime.js'
import { nodeAmbientFiles } from '../../program/node-types.js'
import { SANDBOX_GLOBALS } from '../../program/typecheck-hints.js'
import { createHost, DEFAULT_OPTIONS, parseFile, ts } from '../../program/ts-host.js'
import { renderDeclarations } from '../../sdk/declarations.js'
import type { AnyToolDefinition } from '../../vocabulary/types.js'
import { dockerEngine } from '../docker/engine.js'
import { ensureImage } from '../docker/helpers.js'

const echo: AnyToolDefinition = {
  name: 'echo',
  description: 'Returns its text.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: ({ text }: { text: string }) => text,
}

/** The objects whose members are compared, beside the global names themselves. */
const NAMESPACES = ['console', 'tools', 'Math', 'JSON', 'Reflect', 'Atomics', 'Intl']

/**
 * Declared by ES2023's lib as one unit with what the sandbox keeps, and removed by the isolate's lockdown
 * (test/security/builtin-sweep.test.ts): a program using one fails with a ReferenceError that names it.
 */
const LOCKDOWN_REMOVES = ['FinalizationRegistry', 'SharedArrayBuffer', 'WeakRef', 'Atomics.wait']

/** V8's own, non-standard and deprecated (`Intl.Segmenter` is declared): left undeclared on purpose. */
const ENGINE_EXTRAS = ['Intl.v8BreakIterator']

type Surface = { globals: string[]; members: Record<string, string[]> }

/** What a run really has: own property names, symbols left out (types cannot name most of them). */
const PROBE = `const members: Record<string, string[]> = {}
for (const ns of ${JSON.stringify(NAMESPACES)}) members[ns] = Object.getOwnPropertyNames((globalThis as any)[ns]).sort()
return { globals: Object.getOwnPropertyNames(globalThis).sort(), members }`

async function realSurface(rt: Runtime): Promise<Surface> {
  const r = await rt.runCode(PROBE)
  expect(r.error, r.observation).toBeNull()
  return r.value as Surface
}

/** What the checker declares: the value names in scope at the program's top level, and each namespace's members. */
function declaredSurface(nodeTypes: boolean): Surface {
  const files = [
    parseFile('/codeact/sandbox-globals.d.ts', SANDBOX_GLOBALS),
    parseFile('/codeact/sdk.d.ts', renderDeclarations([echo])),
    ...(nodeTypes ? nodeAmbientFiles().map((f) => parseFile(f.fileName, f.text)) : []),
    parseFile('/codeact/program.ts', 'export {}\nvoid 0\n', true),
  ]
  const program = ts.createProgram({ rootNames: files.map((f) => f.fileName), options: DEFAULT_OPTIONS, host: createHost(() => files) })
  const checker = program.getTypeChecker()
  const at = program.getSourceFile('/codeact/program.ts')!.statements[1]!
  const symbols = checker.getSymbolsInScope(at, ts.SymbolFlags.Value).filter((s) => !s.name.startsWith('"'))
  const members: Record<string, string[]> = {}
  for (const ns of NAMESPACES) {
    const symbol = symbols.find((s) => s.name === ns)
    members[ns] = symbol ? memberNames(checker, checker.getTypeOfSymbolAtLocation(symbol, at)) : []
  }
  return { globals: symbols.map((s) => s.name).sort(), members }
}

function memberNames(checker: TS.TypeChecker, type: TS.Type): string[] {
  return checker
    .getPropertiesOfType(type)
    .map((p) => p.name)
    .filter((n) => !n.startsWith('__@'))
    .sort()
}

function compare(real: Surface, declared: Surface, removed: readonly string[]): void {
  const undeclared = real.globals.filter((n) => !declared.globals.includes(n))
  const missing = declared.globals.filter((n) => !real.globals.includes(n) && !removed.includes(n))
  expect({ undeclared, missing }, 'globals: in the sandbox but not declared / declared but not in the sandbox').toEqual({
    undeclared: [],
    missing: [],
  })
  for (const ns of NAMESPACES) {
    const has = real.members[ns] ?? []
    const says = declared.members[ns] ?? []
    // `prototype`, `length` and `name` of a function namespace are not members a type lists.
    const own = has.filter((n) => !['prototype', 'length', 'name'].includes(n))
    expect(
      {
        ns,
        undeclared: own.filter((n) => !says.includes(n) && !ENGINE_EXTRAS.includes(`${ns}.${n}`)),
        missing: says.filter((n) => !has.includes(n) && !removed.includes(`${ns}.${n}`)),
      },
      `${ns}: members in the sandbox but not declared / declared but not in the sandbox`,
    ).toEqual({ ns, undeclared: [], missing: [] })
  }
}

describe('isolate: the declared globals are the sandbox’s', () => {
  let rt: Runtime
  beforeAll(async () => {
    rt = await createRuntime({ typecheck: 'off', tools: [echo] })
  })
  afterAll(async () => {
    await rt?.close()
  })

  it('every global, console method and namespace member, both ways', async () => {
    compare(await realSurface(rt), declaredSurface(false), LOCKDOWN_REMOVES)
  }, 60_000)

  it('a checked program that uses console.table, console.dir and console.trace runs', async () => {
    const checked = await createRuntime({ typecheck: 'error', tools: [echo] })
    try {
      const r = await checked.runCode(
        "console.table([{ a: 1 }], ['a'])\nconsole.dir({ b: 2 }, { depth: 1 })\nconsole.trace('here')\nreturn 1",
      )
      expect(r.error, r.observation).toBeNull()
      expect(r.logs.map((l) => l.text)).toEqual(['[ { a: 1 } ]', '{ b: 2 }', 'here'])
    } finally {
      await checked.close()
    }
  }, 60_000)
})

describe.skipIf(process.env['CODEACT_DOCKER'] !== '1' || !dockerEngine.available)('docker: the declared globals are the realm’s', () => {
  let rt: Runtime
  beforeAll(async () => {
    await ensureImage()
    rt = await createRuntime({ typecheck: 'off', tools: [echo], sandbox: 'docker', docker: { poolSize: 1 } })
  }, 300_000)
  afterAll(async () => {
    await rt?.close()
  })

  it("every global, console method and namespace member, both ways (Node's types, less what the realm lacks)", async () => {
    compare(await realSurface(rt), declaredSurface(true), [])
  }, 120_000)
})
