import type { ParseArgsConfig } from 'node:util'

/** The values node:util's parseArgs gives for a table of flags: a boolean, a string, or a repeatable flag's list. */
export type FlagValues<T extends NonNullable<ParseArgsConfig['options']>> = {
  [K in keyof T]?: T[K] extends { type: 'boolean' } ? boolean : T[K] extends { multiple: true } ? string[] : string
}
