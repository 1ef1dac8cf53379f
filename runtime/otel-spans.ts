/**
 * OpenTelemetry spans from the event log, named by the GenAI semantic conventions: a run is the execution
 * of the tool `run_code` (`execute_tool run_code`), each of its tool calls an `execute_tool NAME` span under
 * it. Only `@opentelemetry/api` is imported: without a registered tracer provider every span is a no-op, and
 * an embedder's own provider (NodeSDK, …) receives them. A run's span is parented under the context active
 * when the run starts, so a server that runs a request inside the caller's extracted `traceparent` context
 * puts codeact's spans inside the caller's trace.
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api'
import { type EventSource, watchRuns } from './run-watch.js'

const TRACER = 'codeact'

/** Emits spans for every run and tool call of `rt` (a Runtime); returns the function that stops it. */
export function traceRuns(rt: EventSource, tracer: Tracer = trace.getTracer(TRACER)): () => void {
  const runs = new Map<string, Span>()
  const calls = new Map<string, Span>()
  return watchRuns(rt, {
    runStarted(run) {
      const attributes: Attributes = { ...toolAttributes('run_code', run.runId), 'codeact.run.id': run.runId }
      if (run.caller !== undefined) attributes['codeact.caller'] = run.caller
      if (run.sessionId !== undefined) attributes['codeact.session.id'] = run.sessionId
      runs.set(
        run.runId,
        tracer.startSpan('execute_tool run_code', { kind: SpanKind.INTERNAL, attributes, startTime: run.time }, context.active()),
      )
    },
    runEnded(run) {
      const span = runs.get(run.runId)
      if (!span) return
      runs.delete(run.runId)
      span.setAttributes({
        'codeact.run.outcome': run.outcome,
        'codeact.run.calls': run.calls,
        'codeact.run.failed_calls': run.failedCalls,
      })
      if (run.outcome !== 'ok') fail(span, run.code ?? run.outcome)
      span.end(run.time + run.durationMs)
    },
    callStarted(call) {
      const parent = call.runId === undefined ? undefined : runs.get(call.runId)
      const ctx = parent ? trace.setSpan(context.active(), parent) : context.active()
      const attributes = { ...toolAttributes(call.name, call.id), 'codeact.call.origin': call.origin }
      calls.set(call.id, tracer.startSpan(`execute_tool ${call.name}`, { kind: SpanKind.INTERNAL, attributes, startTime: call.time }, ctx))
    },
    callEnded(call) {
      const span = calls.get(call.id)
      if (!span) return
      calls.delete(call.id)
      if (call.outcome !== 'ok') fail(span, call.outcome)
      span.end(call.time + call.durationMs)
    },
  })
}

function toolAttributes(name: string, callId: string): Attributes {
  return {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': name,
    'gen_ai.tool.call.id': callId,
    'gen_ai.tool.type': 'function',
  }
}

function fail(span: Span, errorType: string): void {
  span.setAttribute('error.type', errorType)
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorType })
}
