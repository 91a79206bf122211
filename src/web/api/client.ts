import { FetchHttpClient, HttpApiClient, HttpClient, HttpClientError, HttpClientRequest } from "@effect/platform"
import { Effect, ParseResult } from "effect"
import { Api } from "../../http/Api.js"
import { UnreadableAnswer } from "./errors.js"

/** The API writes every error body in JSON; an error status with another body is not the API's answer. */
const isJson = (contentType: string | undefined) => contentType !== undefined && /\bjson\b/i.test(contentType)

/**
 * The typed client of the whole API, made from the same `Api` definition the server serves (so the
 * two cannot drift), over the platform's fetch client. `accessToken` is read on every request, so
 * one client serves the whole session across token refreshes.
 *
 * An answer it cannot read never fails as the ParseError a value it refuses to send fails with (which
 * the app tells as invalid input): a proxy's or load balancer's own page (nginx's HTML 503 while the
 * API restarts) is a ResponseError told by its status, its body never decoded; any other answer that
 * does not decode is an `UnreadableAnswer` (api/errors.ts).
 */
export const makeApiClient = (accessToken: () => string | undefined, baseUrl = window.location.origin) =>
  Effect.runSync(
    HttpApiClient.make(Api, {
      baseUrl,
      transformClient: (client) =>
        client.pipe(
          HttpClient.mapRequest((request) => {
            const token = accessToken()
            return token === undefined ? request : HttpClientRequest.bearerToken(request, token)
          }),
          HttpClient.filterOrFail(
            (response) => response.status < 400 || isJson(response.headers["content-type"]),
            (response) =>
              new HttpClientError.ResponseError({
                reason: "StatusCode",
                request: response.request,
                response,
                description: "an error status without the API's JSON body"
              })
          )
        ),
      transformResponse: (decoded) =>
        Effect.catchIf(decoded, ParseResult.isParseError, () => Effect.fail(new UnreadableAnswer()))
    }).pipe(Effect.provide(FetchHttpClient.layer))
  )

export type ApiClient = ReturnType<typeof makeApiClient>
