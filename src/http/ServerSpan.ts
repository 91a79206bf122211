import { HttpServerError, type HttpServerRequest, type HttpServerResponse, HttpTraceContext } from "@effect/platform"
import { Effect, Exit, Option } from "effect"
import { UNMATCHED } from "./RouteTemplates.js"

/**
 * A request's server span, made only when traces are exported (OTEL_EXPORTER_OTLP_ENDPOINT set). The
 * platform's own (HttpMiddleware.tracer, switched off in Server.ts) records the raw URL (`url.full`,
 * `url.path`, `url.query`) and every request and response header: a report download's path holds its
 * token, a credential stored elsewhere only as its SHA-256, and a query or an `X-Next-Cursor` a
 * cursor. This one names the route template the router matched (RouteTemplates) where the raw path
 * would go, and keeps no query and no header: `http.request.method`, `http.route`, `url.path` (the
 * template), `url.full` (scheme, host and template), `url.scheme`, `user_agent.original`,
 * `client.address`, `http.response.status_code`. A request no route takes has no route, path or full
 * URL (its path may hold anything). Named `<method> <template>` (OpenTelemetry's HTTP conventions).
 * A `traceparent` (or b3) header continues the caller's trace, as the platform's span did.
 */
export const withServerSpan = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  route: string,
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
  const matched = route !== UNMATCHED
  // The platform's rule for the scheme (toURL): TLS ends before this process.
  const scheme = request.headers["x-forwarded-proto"] === "https" ? "https" : "http"
  return Effect.useSpan(
    matched ? `${request.method} ${route}` : request.method,
    {
      parent: Option.getOrUndefined(HttpTraceContext.fromHeaders(request.headers)),
      kind: "server",
      captureStackTrace: false
    },
    (span) => {
      span.attribute("http.request.method", request.method)
      span.attribute("url.scheme", scheme)
      if (matched) {
        span.attribute("http.route", route)
        span.attribute("url.path", route)
        span.attribute("url.full", `${scheme}://${request.headers.host ?? "localhost"}${route}`)
      }
      const userAgent = request.headers["user-agent"]
      if (userAgent !== undefined) span.attribute("user_agent.original", userAgent)
      if (Option.isSome(request.remoteAddress)) span.attribute("client.address", request.remoteAddress.value)
      return Effect.onExit(Effect.withParentSpan(app, span), (exit) => {
        const status = Exit.isSuccess(exit) ? exit.value.status : HttpServerError.exitResponse(exit).status
        span.attribute("http.response.status_code", status)
        return Effect.void
      })
    }
  )
}
