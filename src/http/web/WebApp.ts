import * as fs from "node:fs/promises"
import * as path from "node:path"
import { HttpApiBuilder, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { AppConfig } from "../../infra/config/AppConfig.js"

/**
 * Serves the browser app (its build in WEB_DIR, `dist/web` by default) from the API process, in the
 * API's router, so `npm start` and `npm run api` answer `/` alike:
 * - `/` and `/index.html`: the page, `Cache-Control: no-cache` (a new build is seen at once) and a
 *   Content-Security-Policy that allows only the app's own scripts, styles and API;
 * - files with a content hash in their name: `public, max-age=31536000, immutable`; other files:
 *   `no-cache`;
 * - deep links (a GET for a path without a file extension, outside `/api/`, from a browser asking
 *   for HTML) get the page too, so a reload lands in the app;
 * - everything else, and every `/api/…` path no API route takes, stays the API's JSON 404.
 * Without a build, `/` says how to make one (503) instead of failing.
 */

export const APP_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"

export const IMMUTABLE = "public, max-age=31536000, immutable"

/**
 * A name carrying a content hash: esbuild's `name-HASH.ext` (8+ upper-case letters and digits) or a
 * hex digest (`name.3f2a9c1d.js`), with any further extensions (`app-HASH.js.map`). Such a file never
 * changes under its name.
 */
export const isHashedName = (name: string) => /[-.](?:[A-Z0-9]{8,}|[a-f0-9]{8,})(?:\.[A-Za-z0-9]+)+$/.test(name)

const notFound = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
  Effect.fail(new HttpServerError.RouteNotFound({ request }))
)

const pageHeaders = { "cache-control": "no-cache", "content-security-policy": APP_CSP }

const notBuilt = (webDir: string) =>
  HttpServerResponse.html(
    `<!doctype html><html lang="ro"><head><meta charset="utf-8"><title>Tender Scoring Service</title></head><body><h1>Aplicația web nu este construită</h1><p>The web app has not been built: no <code>index.html</code> in <code>${escapeHtml(webDir)}</code>. <code>npm start</code> and <code>npm run api</code> build it before starting; the API itself works (<a href="/docs">/docs</a>).</p></body></html>`
  ).pipe(HttpServerResponse.setStatus(503), HttpServerResponse.setHeaders(pageHeaders))

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * The real path of `file` when it is a regular file whose real path (links resolved) lies inside the
 * real `root`: a symbolic link in WEB_DIR to a file outside it is not served (the checks on the
 * request's path see only the link's own name).
 */
const fileWithin = (root: string, file: string) =>
  Effect.promise(async (): Promise<Option.Option<string>> => {
    try {
      const [realRoot, realFile] = await Promise.all([fs.realpath(root), fs.realpath(file)])
      const inside = realFile.startsWith(realRoot + path.sep) && (await fs.stat(realFile)).isFile()
      return inside ? Option.some(realFile) : Option.none()
    } catch {
      return Option.none()
    }
  })

/** The path of a request inside `root`, or none when it cannot name a file there (bad escape, dot segment, NUL). */
const fileOf = (root: string, pathname: string): Option.Option<string> => {
  let decoded: string
  try {
    decoded = decodeURIComponent(pathname)
  } catch {
    return Option.none()
  }
  const segments = decoded.split("/").filter((segment) => segment !== "")
  if (segments.some((segment) => segment.startsWith(".") || /[\\\0]/.test(segment))) return Option.none()
  const file = path.join(root, ...segments)
  return file.startsWith(root + path.sep) ? Option.some(file) : Option.none()
}

const acceptsHtml = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers.accept ?? "").toLowerCase().includes("text/html")

export const WebAppLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const root = path.resolve(config.webDir)
    const index = path.join(root, "index.html")

    const page = Effect.flatMap(fileWithin(root, index), (file) =>
      Option.isSome(file)
        ? HttpServerResponse.file(file.value, { headers: pageHeaders }).pipe(Effect.orDie)
        : Effect.succeed(notBuilt(config.webDir))
    )

    const asset = (file: string) =>
      HttpServerResponse.file(file, {
        headers: { "cache-control": isHashedName(path.basename(file)) ? IMMUTABLE : "no-cache" }
      }).pipe(Effect.orDie)

    const other = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const pathname = request.url.split("?")[0]!
      if (pathname === "/api" || pathname.startsWith("/api/")) return yield* notFound
      const file = fileOf(root, pathname)
      if (Option.isNone(file)) return yield* notFound
      if (file.value === index) return yield* page
      if (path.extname(file.value) !== "") {
        const served = yield* fileWithin(root, file.value)
        return Option.isSome(served) ? yield* asset(served.value) : yield* notFound
      }
      return acceptsHtml(request) ? yield* page : yield* notFound
    })

    yield* router.get("/", page)
    yield* router.get("/*", other)
  })
)
