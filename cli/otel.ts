/**
 * `--otel` (or the standard `OTEL_EXPORTER_OTLP_ENDPOINT` set): the OpenTelemetry SDK, loaded only then,
 * registered as the process's tracer provider with an OTLP/HTTP exporter configured by the standard
 * `OTEL_EXPORTER_OTLP_*` variables, W3C trace-context propagation (so a request's `traceparent` parents
 * its runs) and an AsyncLocalStorage context manager (so that parent follows the request's async work).
 * The spans themselves come from runtime/otel-spans.ts, which only knows the API.
 */
import type { Runtime } from '../runtime/create-runtime.js'

export interface Tracing {
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>
}

/** Whether tracing is asked for: the flag, or the standard endpoint variable (unless OTEL_SDK_DISABLED). */
export function tracingWanted(flag: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true') return false
  return flag === true || Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
}

export async function startTracing(rt: Runtime): Promise<Tracing> {
  const [api, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, resources, sdk, { OTLPTraceExporter }, { traceRuns }] =
    await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/core'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('../runtime/otel-spans.js'),
    ])
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, when set, win over the default name.
  const resource = resources
    .resourceFromAttributes({ 'service.name': 'codeact' })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
  const provider = new sdk.TracerProvider({ resource, spanProcessors: [new sdk.BatchSpanProcessor({ exporter: new OTLPTraceExporter() })] })
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator())
  api.trace.setGlobalTracerProvider(provider)
  const stop = traceRuns(rt, provider.getTracer('codeact'))
  return {
    shutdown: async () => {
      stop()
      await provider.shutdown().catch(() => {})
    },
  }
}
