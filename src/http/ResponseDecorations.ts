import { HttpApp, HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

/** A change to the response a request ends with (headers), whatever produced it: success or mapped error. */
export type ResponseDecoration = (
  response: HttpServerResponse.HttpServerResponse
) => HttpServerResponse.HttpServerResponse | Effect.Effect<HttpServerResponse.HttpServerResponse>

/** The decorations registered for each request the server is serving (see withResponseDecorations). */
const pending = new WeakMap<HttpServerRequest.HttpServerRequest, Array<ResponseDecoration>>()

const applyAll = (
  decorations: ReadonlyArray<ResponseDecoration>,
  response: HttpServerResponse.HttpServerResponse
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  let current = response
  for (let i = 0; i < decorations.length; i++) {
    const next = decorations[i]!(current)
    if (Effect.isEffect(next)) {
      const rest = decorations.slice(i + 1)
      return Effect.flatMap(next, (decorated) => applyAll(rest, decorated))
    }
    current = next
  }
  return Effect.succeed(current)
}

/**
 * Adds a decoration to the current request's response. The platform's own mechanism
 * (`HttpApp.appendPreResponseHandler`) copies the fiber's FiberRefs and chains one more effect per
 * call; on the key API's hot path three middlewares each added one (request id, security headers,
 * credit headers), measured with `npm run bench -- api`. Under the server's middleware
 * (withResponseDecorations) a decoration is one array push, and all run in one pre-response handler.
 * Outside it (a test serving a bare handler) the platform's mechanism is used.
 */
export const decorateResponse = (
  decoration: ResponseDecoration
): Effect.Effect<void, never, HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const decorations = pending.get(request)
    if (decorations !== undefined) {
      decorations.push(decoration)
      return Effect.void
    }
    return HttpApp.appendPreResponseHandler((_request, response) => applyAll([decoration], response))
  })

/**
 * For the server's outermost middleware: registers the request's one pre-response handler, which
 * applies the decorations added while the request ran, in the order they were added (`first` first).
 */
export const withResponseDecorations = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  first: ResponseDecoration,
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
  const decorations: Array<ResponseDecoration> = [first]
  pending.set(request, decorations)
  return Effect.zipRight(
    HttpApp.appendPreResponseHandler((_request, response) => applyAll(decorations, response)),
    app
  )
}
