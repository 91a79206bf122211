import { HttpApiBuilder, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect } from "effect"
import { AppConfig } from "../infra/config/AppConfig.js"
import { Api } from "./Api.js"

export const OPENAPI_PATH = "/api/v1/openapi.json"

/**
 * The document as served: the one generated from `Api`, plus `servers`. That is PUBLIC_BASE_URL (the
 * address this deployment gives its clients), not a relative "/": a client generator often works on
 * a saved copy of the document, which would lose the host. Paths carry `/api/v1`, so the server is
 * the bare origin.
 */
export const openApiDocument = (publicBaseUrl: string): OpenApi.OpenAPISpec => ({
  ...OpenApi.fromApi(Api),
  servers: [{ url: publicBaseUrl, description: "This deployment (PUBLIC_BASE_URL)" }]
})

/**
 * Serves the document at OPENAPI_PATH (read by the docs page at /docs and by client generators). It is
 * generated at the first request (then kept), not at start: reflecting over every route of `Api` is
 * a cost no start should pay for a page few requests ask for.
 */
export const OpenApiDocumentLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const response = yield* Effect.cached(
      Effect.suspend(() => HttpServerResponse.json(openApiDocument(config.publicBaseUrl))).pipe(Effect.orDie)
    )
    yield* router.get(OPENAPI_PATH, response)
  })
)
