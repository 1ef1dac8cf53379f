/** `codeact repl`'s usage lines: in a module of their own, so `codeact --help` and `run` do not load the REPL. */
export const REPL_USAGE = `  codeact repl [--tools MODULE]... [--workspace DIR …] [--sandbox isolate|docker [--docker-OPTION VALUE]...]
               [--typecheck=error|warn|off] [--verbose] [the limit flags of run] [--realm-memory MB] [--realm-idle MS|10m]
               [--log FILE.jsonl [--session ID]] [--mcp …]... [--mcp-config FILE.json]...
               type TypeScript: every input runs in one session, so its bindings are the next input's; .help lists
               the commands; --session takes up the session of an earlier REPL from its log; history is kept in
               ~/.codeact_repl_history (or $CODEACT_REPL_HISTORY; empty: none)`
