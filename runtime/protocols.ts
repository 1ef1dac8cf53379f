/**
 * The runtime's methods for the protocols besides programs and native calls (docs/protocols.md): ReAct text
 * actions and programs written for OpenAI's programmatic tool calling. Kept out of create-runtime.ts, which
 * only spreads them in.
 */
import type { Limits, RunResult } from '../vocabulary/types.js'
import type { DispatchEnv } from './dispatch.js'
import { RUN_CODE } from './native.js'
import { ptcSource, programOutput, type ProgramOutput } from './ptc/program.js'
import { executeText, type ExecuteTextOptions, type ExecuteTextResult } from './react/execute.js'
import { reactPrompt, type ReactPromptOptions } from './react/prompt.js'
import type { ToolRegistry } from './registry.js'
import type { RunCodeOptions } from './run-code.js'

export interface ProtocolMethods {
  /**
   * Runs the action(s) of a model's ReAct text (`Action: search[codeact]`, `Action:`/`Action Input:`,
   * `Finish[…]`) as direct calls through the same dispatch and log; answers the observation to append.
   * Never throws for what the model wrote: a text that does not parse is an observation naming the form.
   */
  executeText(text: string, options?: ExecuteTextOptions): Promise<ExecuteTextResult>
  /** The ReAct instructions and worked example for a system prompt, generated from the directly callable tools. */
  reactPrompt(options?: ReactPromptOptions): string
  /**
   * Runs a program written for OpenAI's programmatic tool calling as it is (each tool a global async
   * function, `text()`/`image()` for output); answers its `program_output` (`result`, `status`) and the run.
   */
  runPtcProgram(code: string, options?: RunCodeOptions): Promise<ProgramOutput>
}

export interface ProtocolDeps {
  env: DispatchEnv
  limits: Limits
  mode: 'both' | 'code' | 'minimal'
  runProgram(code: string, options?: RunCodeOptions): Promise<RunResult>
  assertOpen(): void
}

export function protocolMethods(deps: ProtocolDeps): ProtocolMethods {
  const { env } = deps
  return {
    executeText: async (text, o) => {
      deps.assertOpen()
      return executeText(env, deps.limits, text, o)
    },
    reactPrompt: (o) => reactPrompt(directTools(env.registry, deps.mode), o),
    runPtcProgram: async (code, o) => {
      deps.assertOpen()
      const tools = env.registry.programNames().map((n) => env.registry.get(n)!)
      return programOutput(await deps.runProgram(ptcSource(String(code), tools), o))
    },
  }
}

/** The tools a model may call directly, for the ReAct prompt: the registered ones, or only `run_code` in code mode. */
function directTools(registry: ToolRegistry, mode: 'both' | 'code' | 'minimal') {
  return registry.directNames().flatMap((n) => ((mode === 'code') !== (n === RUN_CODE) ? [] : [registry.get(n)!]))
}
