/** Runtimes with sessions for the session tests: real isolate, the type check on unless told otherwise. */
import { afterAll } from 'vitest'
import { createRuntime, type Runtime, type RuntimeOptions } from '../../runtime/create-runtime.js'

const open: Runtime[] = []
afterAll(async () => {
  await Promise.all(open.splice(0).map((rt) => rt.close()))
})

/** A runtime closed when the file's tests end. */
export async function sessionRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const rt = await createRuntime(options)
  open.push(rt)
  return rt
}
