/**
 * The command that builds the runner image, as whoever reads the error can run it: the images/build.sh this
 * copy of codeact ships (in a clone or in node_modules/codeact alike, whatever installed it), by its absolute
 * path, with `--tag` when the image asked for is not the default.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { DEFAULT_IMAGE } from './options.js'

const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`)

export function buildImageCommand(image: string): string {
  // From sandbox/docker/ (source) or dist/sandbox/docker/ (built): the package's images/ is two or three up.
  const script = ['../../images/build.sh', '../../../images/build.sh']
    .map((p) => fileURLToPath(new URL(p, import.meta.url)))
    .find((p) => existsSync(p))
  const tag = image === DEFAULT_IMAGE ? '' : ` --tag ${quote(image)}`
  return `sh ${quote(script ?? 'node_modules/codeact/images/build.sh')}${tag}`
}
