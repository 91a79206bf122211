import { FetchHttpClient, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../../http/Api.js"

/**
 * The typed client of the whole API, made from the same `Api` definition the server serves (so the
 * two cannot drift), over the platform's fetch client. `accessToken` is read on every request, so
 * one client serves the whole session across token refreshes.
 */
export const makeApiClient = (accessToken: () => string | undefined, baseUrl = window.location.origin) =>
  Effect.runSync(
    HttpApiClient.make(Api, {
      baseUrl,
      transformClient: (client) =>
        HttpClient.mapRequest(client, (request) => {
          const token = accessToken()
          return token === undefined ? request : HttpClientRequest.bearerToken(request, token)
        })
    }).pipe(Effect.provide(FetchHttpClient.layer))
  )

export type ApiClient = ReturnType<typeof makeApiClient>
