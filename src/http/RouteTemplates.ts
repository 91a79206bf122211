import { HttpApiBuilder, type HttpServerRequest } from "@effect/platform"
import { Context, Effect, Layer } from "effect"
import * as FindMyWay from "find-my-way-ts"
import { ROUTER_CONFIG } from "./RequestLimits.js"

/**
 * The route template a request matched ("/api/v1/tenders/:tenderId/score"), for metric labels, log
 * lines, trace spans and the security headers: never the raw URL, whose ids and queries would make
 * every request its own series, and whose path may hold a credential (a report's download token).
 * The platform's router knows the matched route only inside the route; the request's middleware
 * runs outside it, so the same routes are matched again here with the router's own matcher and
 * options (find-my-way, well under a microsecond a request): every spelling the router serves (any
 * letter case, percent-encoded letters, a trailing slash) gets the template of the route it reaches.
 */
export class RouteTemplates extends Context.Tag("RouteTemplates")<
  RouteTemplates,
  {
    /** The template of a request being served, matched once: the request's middlewares share it. */
    readonly ofRequest: (request: HttpServerRequest.HttpServerRequest) => string
  }
>() {}

/** Requests no route takes (404s, scanners): one label value, so they cannot grow the series. */
export const UNMATCHED = "unmatched"

/**
 * Requests the node:http server answered itself, before any routing: the refusals of the request
 * limits (413, 414, 431, 400, 408) and the 503s of a drain.
 */
export const REFUSED = "refused"

export const RouteTemplatesLive = Layer.effect(
  RouteTemplates,
  Effect.map(HttpApiBuilder.Router, (service) => {
    // Read at the first request: the groups add their routes while the server's layers are built.
    let matcher: ((method: string, url: string) => string) | undefined
    const build = () => {
      const router = Effect.runSync(service.router)
      const find = FindMyWay.make<string>(ROUTER_CONFIG)
      for (const route of router.routes) {
        if (route.method === "*") find.all(route.path, route.path)
        else find.on(route.method, route.path, route.path)
      }
      const mounts = [...router.mounts].map(([path]) => path)
      return (method: string, url: string) => {
        const found = find.find(method, url) ?? (method === "HEAD" ? find.find("GET", url) : undefined)
        if (found !== undefined) return found.handler
        const path = url.split("?", 1)[0]!
        const mount = mounts.find((prefix) => path === prefix || path.startsWith(`${prefix}/`))
        return mount === undefined ? UNMATCHED : `${mount}/*`
      }
    }
    const match = (method: string, url: string) => {
      matcher ??= build()
      return matcher(method, url)
    }
    const matched = new WeakMap<HttpServerRequest.HttpServerRequest, string>()
    return {
      ofRequest: (request) => {
        let route = matched.get(request)
        if (route === undefined) {
          route = match(request.method, request.url)
          matched.set(request, route)
        }
        return route
      }
    }
  })
  // The same Router service as the API groups': layers are built once per process (memoized).
).pipe(Layer.provide(HttpApiBuilder.Router.Live))
