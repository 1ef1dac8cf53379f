/** Bad usage of the command line: exit status 2 with the usage text. */
export class UsageError extends Error {}
