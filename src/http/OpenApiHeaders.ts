/**
 * Response headers that pre-response handlers set, outside every endpoint's schemas, so the
 * OpenAPI generator cannot see them. `Api` applies this to its document (an `OpenApi.Transform`).
 */

// The generator's own types know no response headers.
type Document = Record<string, any>
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

/** Set with every 429, by the key API's rate limit and by the login throttle. */
const retryAfter = integerHeader("Whole seconds to wait before the next attempt.", true, 1)

/** The key API's operations are those behind the `apiKey` scheme of ApiKeyAuth. */
const usesApiKey = (operation: Operation) =>
  (operation.security as ReadonlyArray<Record<string, unknown>>).some((requirement) => "apiKey" in requirement)

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

/** The credit headers on the key API's responses (required on success), `Retry-After` on every 429. */
export const documentResponseHeaders = (document: Document): Document => ({
  ...document,
  paths: Object.fromEntries(
    Object.entries(document.paths as Record<string, Record<string, Operation>>).map(([path, item]) => [
      path,
      Object.fromEntries(Object.entries(item).map(([method, operation]) => [method, withResponseHeaders(operation)]))
    ])
  )
})
