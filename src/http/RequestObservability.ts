import { type HttpApp, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Context, Effect, Exit, type Fiber, FiberRef, LogLevel, Runtime } from "effect"
import { Metrics } from "../infra/metrics/Metrics.js"
import { currentRequest, type RequestFacts } from "../infra/observability/RequestTrail.js"
import { tracingOn } from "../infra/observability/Tracing.js"
import { requestIdFrom } from "./RequestId.js"
import { withResponseDecorations } from "./ResponseDecorations.js"
import { REFUSED, RouteTemplates } from "./RouteTemplates.js"
import type { ServerReports } from "./ServerAnswers.js"
import { withServerSpan } from "./ServerSpan.js"

/**
 * A request's histogram observation and log line (`error` level for a 5xx), in the fiber that
 * serves it (its `currentRequest` gives the line its request_id). Returns the effect that writes the
 * line, or void when LOG_LEVEL drops it.
 */
const recordRequest = (
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  answer: { readonly method: string; readonly route: string; readonly status: number; readonly seconds: number },
  tenantId: string | undefined
): Effect.Effect<void> => {
  Context.get(fiber.currentContext, Metrics).observeRequest(answer.route, answer.method, answer.status, answer.seconds)
  const level = answer.status >= 500 ? LogLevel.Error : LogLevel.Info
  if (LogLevel.lessThan(level, fiber.getFiberRef(FiberRef.currentMinimumLogLevel))) return Effect.void
  const line = {
    ...(tenantId === undefined ? {} : { tenant_id: tenantId }),
    method: answer.method,
    route: answer.route,
    status: answer.status,
    duration_ms: Math.round(answer.seconds * 1e4) / 10
  }
  return Effect.annotateLogs(Effect.logWithLevel(level, "request"), line)
}

/** The reports, into the logger, level and metrics of the fiber that builds the server. */
export const serverReports: Effect.Effect<ServerReports> = Effect.map(Effect.runtime<never>(), (runtime) => {
  const runFork = Runtime.runFork(runtime)
  return {
    answered: (answer) => {
      runFork(
        Effect.zipRight(
          FiberRef.set(currentRequest, { requestId: answer.requestId, tenantId: undefined }),
          Effect.withFiberRuntime((fiber) => recordRequest(fiber, { ...answer, route: REFUSED }, undefined))
        )
      )
    },
    drainCut: (inFlight, deadlineSeconds) => {
      runFork(
        Effect.logWarning(
          `Shutdown: ${inFlight} request(s) still in flight after ${deadlineSeconds} s; their connections are closed`
        )
      )
    }
  }
})

/**
 * The server's outermost middleware (HttpApiBuilder.serve): per request, the id (from a sane
 * X-Request-Id, else generated; answered in X-Request-Id, on every log line written while the
 * request runs (the loggers read it from `currentRequest`) and kept with the jobs the request
 * enqueues), the duration histogram by route template, method and status, one log line
 * (request id, tenant when authentication found one, route, status, duration), and the server span
 * when traces are exported (ServerSpan.ts). The line runs after the response is written, so the
 * status it sees is the one sent, error mapping included. Per request: one route match (shared with
 * the security headers through RouteTemplates.ofRequest), one FiberRef update, one pre-response
 * handler for every response decoration (ResponseDecorations.ts), two clock reads, a cached
 * histogram child, and the log line only when the level lets it through: the key API's hot path
 * (`npm run bench -- api`).
 */
export const observeRequests = (app: HttpApp.Default): HttpApp.Default<never, RouteTemplates> =>
  Effect.withFiberRuntime((fiber) => {
    const context = fiber.currentContext
    const request = Context.unsafeGet(context, HttpServerRequest.HttpServerRequest)
    const routes = Context.unsafeGet(context, RouteTemplates)
    const facts: RequestFacts = { requestId: requestIdFrom(request.headers["x-request-id"]), tenantId: undefined }
    const started = performance.now()
    const route = routes.ofRequest(request)
    const withId = withResponseDecorations(
      request,
      (response) => HttpServerResponse.setHeader(response, "x-request-id", facts.requestId),
      app
    )
    // Set, not scoped (`Effect.locally`): the platform runs each request in a fiber of its own, which
    // ends with it, so there is nothing to restore (and a scope is ~10 Effect ops per request).
    const served = Effect.zipRight(FiberRef.set(currentRequest, facts), withId)
    return (fiber.getFiberRef(tracingOn) ? withServerSpan(request, route, served) : served).pipe(
      Effect.onExit((exit) =>
        Effect.withFiberRuntime((done) => {
          const seconds = (performance.now() - started) / 1000
          const status = Exit.isSuccess(exit) ? exit.value.status : HttpServerError.exitResponse(exit).status
          // The loggers add request_id from the facts set on this fiber.
          return recordRequest(done, { method: request.method, route, status, seconds }, facts.tenantId)
        })
      )
    )
  })
