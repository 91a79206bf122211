import { HttpApiBuilder, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect } from "effect"
import { AppConfig } from "../infra/AppConfig.js"
import { Api } from "./Api.js"

export const OPENAPI_PATH = "/api/v1/openapi.json"

// The generator's own types know neither response headers nor media types beyond its list.
type Operation = Record<string, any>
type Response = Record<string, any>

const integerHeader = (description: string, required: boolean, minimum = 0) => ({
  description,
  required,
  schema: { type: "integer", minimum }
})

/**
 * `X-API-Credits-*`: written by CreditsReport on every response once the API key is accepted
 * (success, 400, 402, 403, 404, 429), never on a refused key (401).
 */
const creditHeaders = (required: boolean) => ({
  "X-API-Credits-Cost": integerHeader("Credits this request cost: 0 when it was refused before charging.", required),
  "X-API-Credits-Remaining": integerHeader("The tenant's credit balance after this request.", required)
})

const retryAfter = integerHeader("Whole seconds to wait before the next attempt.", true, 1)

/** The key API's operations are those behind the `apiKey` scheme of ApiKeyAuth. */
const usesApiKey = (operation: Operation) =>
  (operation.security as ReadonlyArray<Record<string, unknown>>).some((requirement) => "apiKey" in requirement)

/**
 * Headers set by pre-response handlers, which the generator cannot see: the credit headers of the
 * key API (required on success) and `Retry-After` on every 429 (key API and login).
 */
const withResponseHeaders = (operation: Operation): Operation => {
  const keyApi = usesApiKey(operation)
  const responses = Object.entries(operation.responses as Record<string, Response>).map(([status, response]) => {
    const headers = {
      ...response.headers,
      ...(keyApi && status !== "401" ? creditHeaders(status.startsWith("2")) : {}),
      ...(status === "429" ? { "Retry-After": retryAfter } : {})
    }
    return [status, Object.keys(headers).length === 0 ? response : { ...response, headers }] as const
  })
  return { ...operation, responses: Object.fromEntries(responses) }
}

/**
 * The document as served: generated from `Api`, plus what the generator cannot see. `servers` is
 * PUBLIC_BASE_URL (the address this deployment gives its clients), not a relative "/": a client
 * generator often works on a saved copy of the document, which would lose the host. The operations'
 * paths carry `/api/v1`, so the server is the bare origin.
 */
export const openApiDocument = (publicBaseUrl: string): OpenApi.OpenAPISpec => {
  const generated = OpenApi.fromApi(Api)
  const paths = Object.fromEntries(
    Object.entries(generated.paths).map(([path, item]) => [
      path,
      Object.fromEntries(Object.entries(item).map(([method, operation]) => [method, withResponseHeaders(operation)]))
    ])
  )
  return {
    ...generated,
    servers: [{ url: publicBaseUrl, description: "This deployment (PUBLIC_BASE_URL)" }],
    paths
  }
}

/** Serves the document at OPENAPI_PATH (read by the docs page at /docs and by client generators). */
export const OpenApiDocumentLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const response = yield* HttpServerResponse.json(openApiDocument(config.publicBaseUrl)).pipe(Effect.orDie)
    yield* router.get(OPENAPI_PATH, Effect.succeed(response))
  })
)
