import { HttpApiBuilder, HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { AppConfig } from "../infra/config/AppConfig.js"

/**
 * Routes whose responses carry tokens, keys or download URLs: never stored by a browser or a shared
 * cache. Matched by method and path pattern (`:name` = one path segment), so errors of these routes
 * are covered too. The one place for it: add a route here when its response carries a secret.
 */
export const NO_STORE_ROUTES: ReadonlyArray<readonly [method: string, pattern: string]> = [
  ["POST", "/api/v1/auth/login"],
  ["POST", "/api/v1/auth/refresh"],
  ["POST", "/api/v1/settings/api-keys"],
  ["POST", "/api/v1/webhooks"],
  ["POST", "/api/v1/settings/webhooks"],
  ["POST", "/api/v1/app/reports/:jobId/download-url"],
  ["GET", "/api/v1/reports/jobs/:jobId/download"],
  ["GET", "/api/v1/reports/download/:token"]
]

const segments = (path: string) => path.split("/").filter((part) => part !== "")

const matches = (pattern: string, path: string): boolean => {
  const want = segments(pattern)
  const got = segments(path)
  return want.length === got.length && want.every((part, i) => (part.startsWith(":") ? got[i] !== "" : part === got[i]))
}

/** Whether a request's response must carry `Cache-Control: no-store`. */
export const isNoStoreRoute = (method: string, path: string): boolean =>
  NO_STORE_ROUTES.some(([m, pattern]) => m === method.toUpperCase() && matches(pattern, path))

/** Methods and request headers a browser may use across origins (what the API's routes accept). */
const CORS_METHODS = "GET, POST, PATCH, DELETE"
const CORS_REQUEST_HEADERS = "Authorization, Content-Type"
/** Response headers a browser script may read: the API's own, beside the CORS-safelisted ones. */
const CORS_EXPOSED_HEADERS = [
  "Retry-After",
  "Content-Disposition",
  "X-API-Credits-Cost",
  "X-API-Credits-Remaining",
  "X-Next-Cursor",
  "X-Has-More",
  "X-Export-Count",
  "X-Exported-At"
].join(", ")
const CORS_MAX_AGE_SECONDS = "600"

/** Adds `Origin` to Vary without repeating it (another layer may have set Vary). */
const varyOnOrigin = (response: HttpServerResponse.HttpServerResponse) => {
  const current = response.headers.vary
  if (current === undefined || current.trim() === "") return HttpServerResponse.setHeader(response, "vary", "Origin")
  if (current.split(",").some((part) => part.trim().toLowerCase() === "origin" || part.trim() === "*")) return response
  return HttpServerResponse.setHeader(response, "vary", `${current}, Origin`)
}

/**
 * Headers on every response (successes, errors, 404s, the docs), set through a pre-response handler
 * so they reach the responses the error encoder builds too. Every header is SET, never appended, so
 * another layer that sets the same header (the browser app's pages set Cache-Control and CSP) leaves
 * one copy of it:
 * - `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`, always;
 * - `Cache-Control: no-store` on NO_STORE_ROUTES;
 * - CORS only when CORS_ORIGINS lists origins: an `Origin` equal to one of them gets
 *   `Access-Control-Allow-Origin: <that origin>` (never `*`, never credentials) and the exposed headers;
 *   a preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered 204 here, with the allowed
 *   methods and headers when the origin is allowed and without any CORS header when it is not.
 */
export const securityHeaders = (corsOrigins: ReadonlyArray<string>): HttpApiBuilder.MiddlewareFn<never> => {
  const allowed = new Set(corsOrigins)
  const corsOn = allowed.size > 0
  return (app) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const path = request.url.split("?", 1)[0] ?? "/"
      const noStore = isNoStoreRoute(request.method, path)
      const origin = request.headers.origin
      const allowedOrigin = corsOn && origin !== undefined && allowed.has(origin) ? origin : undefined
      const preflight =
        corsOn && request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined

      const decorate = (response: HttpServerResponse.HttpServerResponse) => {
        let out = HttpServerResponse.setHeaders(response, {
          "x-content-type-options": "nosniff",
          "referrer-policy": "no-referrer"
        })
        if (noStore) out = HttpServerResponse.setHeader(out, "cache-control", "no-store")
        if (corsOn) out = varyOnOrigin(out)
        if (allowedOrigin !== undefined) {
          out = HttpServerResponse.setHeader(out, "access-control-allow-origin", allowedOrigin)
          out = preflight
            ? HttpServerResponse.setHeaders(out, {
                "access-control-allow-methods": CORS_METHODS,
                "access-control-allow-headers": CORS_REQUEST_HEADERS,
                "access-control-max-age": CORS_MAX_AGE_SECONDS
              })
            : HttpServerResponse.setHeader(out, "access-control-expose-headers", CORS_EXPOSED_HEADERS)
        }
        return out
      }

      return HttpApp.appendPreResponseHandler((_request, response) => Effect.succeed(decorate(response))).pipe(
        Effect.zipRight(preflight ? Effect.succeed(HttpServerResponse.empty({ status: 204 })) : app)
      )
    })
}

/** The middleware with the configured CORS origins, for every route of the server. */
export const SecurityHeadersLive = HttpApiBuilder.middleware(
  Effect.map(AppConfig, (config) => securityHeaders(config.corsOrigins))
)
