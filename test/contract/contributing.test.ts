// CONTRIBUTING.md's "Adding a backend" shows the in-process backend's test file whole: it is that file.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'

const root = join(import.meta.dirname, '..', '..')

it("CONTRIBUTING.md's example test file is test/contract/in-process.test.ts as it is", () => {
  const page = readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8')
  const section = page.slice(page.indexOf('## Adding a backend'))
  const shown = /<!-- excerpt -->\n```ts\n([\s\S]*?)```/.exec(section)?.[1]
  expect(shown).toBe(readFileSync(join(root, 'test/contract/in-process.test.ts'), 'utf8'))
})
