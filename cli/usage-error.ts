/** Bad usage of the command line: exit status 2, pointing at the command's --help unless `pointAtHelp` is false. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly pointAtHelp = true,
  ) {
    super(message)
  }
}
