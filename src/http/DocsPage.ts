import { createHash } from "node:crypto"
import { createRequire } from "node:module"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { HttpApiBuilder, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect } from "effect"
import { AppConfig } from "../infra/config/AppConfig.js"
import { Api } from "./Api.js"
import { OPENAPI_PATH } from "./OpenApiDocument.js"

/** JSON that cannot close the <script> it sits in (as the platform's own docs page writes it). */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/[\u2028\u2029]/g, (c) => (c === "\u2028" ? "\\u2028" : "\\u2029"))

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/**
 * Scalar's browser script (3.3 MB), read from @effect/platform's file at the first request instead of
 * bundled: as part of the server bundle it was compiled, and its page built, at every start. The
 * module is the one `HttpApiScalar.layer` inlines (an internal path of the pinned 0.97 line; the
 * /docs test notices a move).
 */
const scalarScript = Effect.promise(async () => {
  const platformDir = path.dirname(createRequire(import.meta.url).resolve("@effect/platform/package.json"))
  const module: { javascript: string } = await import(
    pathToFileURL(path.join(platformDir, "dist", "esm", "internal", "httpApiScalar.js")).href
  )
  return module.javascript
})

/** A CSP source for one inline script: the SHA-256 of its text, as browsers hash it. */
const scriptHash = (script: string) => `'sha256-${createHash("sha256").update(script, "utf8").digest("base64")}'`

/**
 * What the page may load, and nothing else: its two inline scripts (by hash; the JSON block is data,
 * not run), the styles and style attributes Scalar injects while it renders (no hash can name those),
 * Scalar's Inter font from fonts.scalar.com, images from the page itself or `data:` URLs, and requests
 * to this deployment (the document at OPENAPI_PATH, "Test request" calls to PUBLIC_BASE_URL).
 */
const docsCsp = (scripts: ReadonlyArray<string>, publicBaseUrl: string) =>
  [
    "default-src 'none'",
    `script-src ${scripts.map(scriptHash).join(" ")} 'wasm-unsafe-eval'`,
    "style-src 'self' 'unsafe-inline'",
    "font-src https://fonts.scalar.com",
    "img-src 'self' data:",
    `connect-src 'self' ${new URL(publicBaseUrl).origin}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'"
  ].join("; ")

/** The page `HttpApiScalar.layer` serves, reading the document from OPENAPI_PATH, with its CSP. */
const docsPage = (publicBaseUrl: string) =>
  Effect.map(scalarScript, (script) => {
    const spec = OpenApi.fromApi(Api)
    const description = spec.info.description
      ? `<meta name="description" content="${escapeHtml(spec.info.description)}"/>
    <meta name="og:description" content="${escapeHtml(spec.info.description)}"/>`
      : ""
    const configure = `document.getElementById('api-reference').dataset.configuration = JSON.stringify(${scriptJson({ _integration: "html", url: OPENAPI_PATH })})`
    return HttpServerResponse.html(`<!doctype html>
<html>
  <head>
    <meta charset="utf-8" />
    <title>${escapeHtml(spec.info.title)}</title>
    ${description}
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <script id="api-reference" type="application/json">
      ${scriptJson(spec)}
    </script>
    <script>${configure}</script>
    <script>${script}</script>
  </body>
</html>`).pipe(HttpServerResponse.setHeader("content-security-policy", docsCsp([configure, script], publicBaseUrl)))
  })

/** The interactive docs at /docs, built on the first request (then kept): no start pays for them. */
export const DocsPageLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const page = yield* Effect.cached(docsPage(config.publicBaseUrl))
    yield* router.get("/docs", page)
  })
)
