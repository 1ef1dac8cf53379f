import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository's root. */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
