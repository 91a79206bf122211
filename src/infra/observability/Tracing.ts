import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import { FetchHttpClient, Headers, HttpTraceContext } from "@effect/platform"
import { Config, Duration, Effect, FiberRef, Layer, Option, type Tracer } from "effect"

/**
 * OTEL_EXPORTER_OTLP_ENDPOINT, the OpenTelemetry variable: the collector's OTLP/HTTP base URL
 * (`http://collector:4318`; spans go to `<it>/v1/traces`). Unset or empty: no tracing at all.
 * Checked at start (Main's `launch`): a value without its scheme (`collector:4318`) would start
 * the process with every export failing unseen.
 */
export const tracingEndpoint = Config.string("OTEL_EXPORTER_OTLP_ENDPOINT").pipe(
  Config.withDefault(""),
  Config.map((value) => (value.trim() === "" ? Option.none<string>() : Option.some(value.trim().replace(/\/+$/, "")))),
  Config.validate({
    // Config.validate errors carry no path: the message names the variable itself.
    message: "OTEL_EXPORTER_OTLP_ENDPOINT: Expected a URL starting with http:// or https://",
    validation: Option.match({
      onNone: () => true,
      onSome: (value) => URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol)
    })
  })
)

/** Whether this process exports traces: only then do jobs carry a traceparent and run in a span. */
export const tracingOn = FiberRef.unsafeMake(false)

/**
 * Traces exported over OTLP/HTTP as JSON to `<endpoint>/v1/traces` when OTEL_EXPORTER_OTLP_ENDPOINT is
 * set, nothing otherwise: Effect's spans (the HTTP server's, a job's in the worker, the ones below
 * them) become OpenTelemetry spans of the service `serviceName`. The exporter is @effect/opentelemetry's
 * own (OtlpTracer), which needs no OpenTelemetry SDK: the SDK's packages are imported at the top of
 * `npm start`'s bundle (esbuild hoists external imports), which cost 150-300 ms of every start even
 * with tracing off.
 */
export const TracingLive = (serviceName: string) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const endpoint = yield* tracingEndpoint
      if (Option.isNone(endpoint)) return Layer.empty
      yield* Effect.logInfo(`Tracing to ${endpoint.value}/v1/traces as ${serviceName}`)
      const exporter = OtlpTracer.layer({
        url: `${endpoint.value}/v1/traces`,
        resource: { serviceName },
        // A second at most between a span's end and its export: a trace is visible while it is looked for.
        exportInterval: Duration.seconds(1)
      }).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer))
      return Layer.merge(exporter, Layer.scopedDiscard(Effect.locallyScoped(tracingOn, true)))
    })
  )

/** The W3C `traceparent` of the current span, to carry a trace through the queue; none outside a span. */
export const currentTraceparent: Effect.Effect<string | undefined> = Effect.flatMap(FiberRef.get(tracingOn), (on) =>
  on
    ? Effect.map(Effect.option(Effect.currentParentSpan), (span) =>
        span._tag === "Some" && span.value._tag === "Span" && span.value.sampled
          ? HttpTraceContext.toHeaders(span.value).traceparent
          : undefined
      )
    : Effect.succeed(undefined)
)

/** The span a job's traceparent names, as the parent of the job's span in the worker. */
export const parentFromTraceparent = (traceparent: string): Option.Option<Tracer.ExternalSpan> =>
  HttpTraceContext.w3c(Headers.unsafeFromRecord({ traceparent }))
