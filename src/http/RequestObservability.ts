import { randomUUID } from "node:crypto"
import { type HttpApp, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Context, Effect, Exit, FiberRef, LogLevel } from "effect"
import { Metrics } from "../infra/metrics/Metrics.js"
import { currentRequest, type RequestFacts } from "../infra/observability/RequestTrail.js"
import { withResponseDecorations } from "./ResponseDecorations.js"
import { RouteTemplates } from "./RouteTemplates.js"

/** An incoming X-Request-Id is kept only if it is a short token: it goes into logs and jobs as is. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/

const requestIdOf = (request: HttpServerRequest.HttpServerRequest) => {
  const incoming = request.headers["x-request-id"]
  return incoming !== undefined && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID()
}

/**
 * The server's outermost middleware (HttpApiBuilder.serve): per request, the id (from a sane
 * X-Request-Id, else generated; answered in X-Request-Id, on every log line written while the
 * request runs (the loggers read it from `currentRequest`) and kept with the jobs the request
 * enqueues), the duration histogram by route template, method and status, and one log line
 * (request id, tenant when authentication found one, route, status, duration). It runs after the
 * response is written, so the status it sees is the one sent, error mapping included. Per request:
 * one FiberRef update, one pre-response handler for every response decoration
 * (ResponseDecorations.ts), two clock reads, a cached histogram child, and the log line only when
 * the level lets it through: the key API's hot path (`npm run bench -- api`).
 */
export const observeRequests = (app: HttpApp.Default): HttpApp.Default<never, RouteTemplates> =>
  Effect.withFiberRuntime((fiber) => {
    const context = fiber.currentContext
    const request = Context.unsafeGet(context, HttpServerRequest.HttpServerRequest)
    const routes = Context.unsafeGet(context, RouteTemplates)
    const metrics = Context.get(context, Metrics)
    const facts: RequestFacts = { requestId: requestIdOf(request), tenantId: undefined }
    const started = performance.now()
    const withId = withResponseDecorations(
      request,
      (response) => HttpServerResponse.setHeader(response, "x-request-id", facts.requestId),
      app
    )
    // Set, not scoped (`Effect.locally`): the platform runs each request in a fiber of its own, which
    // ends with it, so there is nothing to restore (and a scope is ~10 Effect ops per request).
    return Effect.zipRight(FiberRef.set(currentRequest, facts), withId).pipe(
      Effect.onExit((exit) =>
        Effect.withFiberRuntime((done) => {
          const seconds = (performance.now() - started) / 1000
          const status = Exit.isSuccess(exit) ? exit.value.status : HttpServerError.exitResponse(exit).status
          const route = routes.match(request.method, request.url)
          metrics.observeRequest(route, request.method, status, seconds)
          const level = status >= 500 ? LogLevel.Error : LogLevel.Info
          if (LogLevel.lessThan(level, done.getFiberRef(FiberRef.currentMinimumLogLevel))) return Effect.void
          // The loggers add request_id from the facts set on this fiber.
          const line = {
            ...(facts.tenantId === undefined ? {} : { tenant_id: facts.tenantId }),
            method: request.method,
            route,
            status,
            duration_ms: Math.round(seconds * 1e4) / 10
          }
          return Effect.annotateLogs(Effect.logWithLevel(level, "request"), line)
        })
      )
    )
  })
