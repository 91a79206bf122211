import { HttpApi, HttpApiBuilder, HttpApiMiddleware, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { AppConfig } from "../infra/config/AppConfig.js"
import { Api } from "./Api.js"
import { decorateResponse } from "./ResponseDecorations.js"
import { RouteTemplates } from "./RouteTemplates.js"

/**
 * Routes whose responses carry tokens, keys or download URLs, with or without credentials: never
 * stored by a browser or a shared cache. Each is a route template exactly as the API declares it
 * (`:name` as in the endpoint's path), compared with the template the router matched, so errors of
 * these routes are covered too. Add a route here when its response carries a secret and it needs no
 * credentials (every route that needs credentials is covered already).
 */
export const NO_STORE_ROUTES: ReadonlyArray<readonly [method: string, template: string]> = [
  ["POST", "/api/v1/auth/login"],
  ["POST", "/api/v1/auth/refresh"],
  ["POST", "/api/v1/settings/api-keys"],
  ["POST", "/api/v1/webhooks"],
  ["POST", "/api/v1/settings/webhooks"],
  ["POST", "/api/v1/app/reports/:jobId/download-url"],
  ["GET", "/api/v1/reports/jobs/:jobId/download"],
  ["GET", "/api/v1/reports/download/:token"]
]

/** A route of Api: its method, its template, and whether it needs credentials. */
interface ApiRoute {
  readonly method: string
  readonly template: string
  readonly authenticated: boolean
}

/** Every route of Api, read from it once (at the first request, not at import). */
let apiRoutes: ReadonlyArray<ApiRoute> | undefined
const routesOfApi = (): ReadonlyArray<ApiRoute> => {
  if (apiRoutes !== undefined) return apiRoutes
  const routes: Array<ApiRoute> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, middleware }) =>
      routes.push({
        method: endpoint.method,
        template: endpoint.path,
        // An API key or an access token: a security middleware on the endpoint or its group.
        authenticated: [...middleware].some(HttpApiMiddleware.isSecurity)
      })
  })
  apiRoutes = routes
  return routes
}

/**
 * Every route of Api that needs credentials. Its answers are the caller's own data, so none may be
 * stored either.
 */
export const authenticatedRoutes = (): ReadonlyArray<readonly [method: string, template: string]> =>
  routesOfApi()
    .filter((route) => route.authenticated)
    .map((route) => [route.method, route.template] as const)

/** The no-store route templates by method: built at the first request, not at import. */
let noStoreTemplates: Map<string, Set<string>> | undefined
const noStoreTemplatesByMethod = () => {
  if (noStoreTemplates !== undefined) return noStoreTemplates
  noStoreTemplates = new Map()
  for (const [method, template] of [...NO_STORE_ROUTES, ...authenticatedRoutes()]) {
    const templates = noStoreTemplates.get(method) ?? new Set()
    templates.add(template)
    noStoreTemplates.set(method, templates)
  }
  return noStoreTemplates
}

/**
 * Whether a request's response must carry `Cache-Control: no-store`, from the route template the
 * router matched (RouteTemplates), never the raw path: the router takes `/API/V1/SETTINGS/API-KEYS`
 * and `/api/v1/settings/api%2Dkeys` for `/api/v1/settings/api-keys`, so a comparison of the raw path
 * let those answers (the full API key) go out cacheable. HEAD is answered by the GET's route.
 */
export const isNoStoreRoute = (method: string, route: string): boolean => {
  const upper = method.toUpperCase()
  return (
    noStoreTemplatesByMethod()
      .get(upper === "HEAD" ? "GET" : upper)
      ?.has(route) === true
  )
}

/** HSTS for a deployment reached over https: a year, subdomains included (PUBLIC_BASE_URL names the host). */
export const HSTS = "max-age=31536000; includeSubDomains"

/**
 * The methods a browser may use across origins: every method a route of Api accepts (so a route
 * added with a new method is allowed with it: the feedback marks and the digest settings are PUT).
 */
let corsMethods: string | undefined
const corsAllowedMethods = (): string => {
  if (corsMethods !== undefined) return corsMethods
  const order = ["GET", "POST", "PUT", "PATCH", "DELETE"]
  const methods = new Set(routesOfApi().map((route) => route.method))
  corsMethods = [...methods].sort((a, b) => order.indexOf(a) - order.indexOf(b)).join(", ")
  return corsMethods
}
/** Request headers a browser may send across origins. */
const CORS_REQUEST_HEADERS = "Authorization, Content-Type, Idempotency-Key"
/** Response headers a browser script may read: the API's own, beside the CORS-safelisted ones. */
const CORS_EXPOSED_HEADERS = [
  "Retry-After",
  "Content-Disposition",
  "X-API-Credits-Cost",
  "X-API-Credits-Remaining",
  "X-Next-Cursor",
  "X-Has-More",
  "X-Export-Count",
  "X-Exported-At",
  "Idempotent-Replayed"
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
 * - `Cache-Control: no-store` on NO_STORE_ROUTES and every route that needs credentials;
 * - `Strict-Transport-Security` (HSTS) when the deployment is reached over https (`https` set);
 * - CORS only when CORS_ORIGINS lists origins: an `Origin` equal to one of them gets
 *   `Access-Control-Allow-Origin: <that origin>` (never `*`, never credentials) and the exposed headers;
 *   a preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered 204 here, with the allowed
 *   methods and headers when the origin is allowed and without any CORS header when it is not.
 */
export const securityHeaders = (options: {
  readonly corsOrigins: ReadonlyArray<string>
  readonly https: boolean
  /** The request's route template (RouteTemplates.ofRequest: matched once, shared with the request's metrics). */
  readonly routeOf: (request: HttpServerRequest.HttpServerRequest) => string
}): HttpApiBuilder.MiddlewareFn<never> => {
  const allowed = new Set(options.corsOrigins)
  const corsOn = allowed.size > 0
  return (app) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const noStore = isNoStoreRoute(request.method, options.routeOf(request))
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
        if (options.https) out = HttpServerResponse.setHeader(out, "strict-transport-security", HSTS)
        if (corsOn) out = varyOnOrigin(out)
        if (allowedOrigin !== undefined) {
          out = HttpServerResponse.setHeader(out, "access-control-allow-origin", allowedOrigin)
          out = preflight
            ? HttpServerResponse.setHeaders(out, {
                "access-control-allow-methods": corsAllowedMethods(),
                "access-control-allow-headers": CORS_REQUEST_HEADERS,
                "access-control-max-age": CORS_MAX_AGE_SECONDS
              })
            : HttpServerResponse.setHeader(out, "access-control-expose-headers", CORS_EXPOSED_HEADERS)
        }
        return out
      }

      return decorateResponse(decorate).pipe(
        Effect.zipRight(preflight ? Effect.succeed(HttpServerResponse.empty({ status: 204 })) : app)
      )
    })
}

/** The middleware with the configured CORS origins and PUBLIC_BASE_URL's scheme, for every route of the server. */
export const SecurityHeadersLive = HttpApiBuilder.middleware(
  Effect.map(Effect.all([AppConfig, RouteTemplates]), ([config, routes]) =>
    securityHeaders({
      corsOrigins: config.corsOrigins,
      https: new URL(config.publicBaseUrl).protocol === "https:",
      routeOf: routes.ofRequest
    })
  )
)
