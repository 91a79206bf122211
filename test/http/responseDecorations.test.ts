import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { decorateResponse, withResponseDecorations } from "../../src/http/ResponseDecorations.js"

/**
 * ResponseDecorations: the headers the middlewares add reach every response, in the order they were
 * added, under the server's middleware (one pre-response handler) and without it (the platform's
 * own handlers). The servers of the other tests run the first path (test/support/TestServer.ts).
 */
const handler = (app: HttpApp.Default) => HttpApp.toWebHandler(app)

const decorated = Effect.gen(function* () {
  yield* decorateResponse((response) => HttpServerResponse.setHeader(response, "x-order", "first"))
  // An effectful decoration (as the credit headers' balance lookup), then one that reads what came before.
  yield* decorateResponse((response) => Effect.succeed(HttpServerResponse.setHeader(response, "x-effect", "yes")))
  yield* decorateResponse((response) =>
    HttpServerResponse.setHeader(response, "x-order", `${response.headers["x-order"]},second`)
  )
})

const underServerMiddleware = (app: HttpApp.Default) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    withResponseDecorations(request, (response) => HttpServerResponse.setHeader(response, "x-request-id", "r-1"), app)
  )

describe("response decorations", () => {
  it("apply in the order they were added, effectful ones included, under the server's middleware", async () => {
    const app = underServerMiddleware(Effect.zipRight(decorated, HttpServerResponse.text("ok")))
    const res = await handler(app)(new Request("http://localhost/"))
    expect(res.status).toBe(200)
    expect(res.headers.get("x-request-id")).toBe("r-1")
    expect(res.headers.get("x-order")).toBe("first,second")
    expect(res.headers.get("x-effect")).toBe("yes")
  })

  it("reach an error's response too", async () => {
    const app = underServerMiddleware(Effect.zipRight(decorated, Effect.die("a defect")))
    const res = await handler(app)(new Request("http://localhost/"))
    expect(res.status).toBe(500)
    expect(res.headers.get("x-request-id")).toBe("r-1")
    expect(res.headers.get("x-order")).toBe("first,second")
  })

  it("fall back to the platform's pre-response handlers outside the server's middleware", async () => {
    const res = await handler(Effect.zipRight(decorated, HttpServerResponse.text("ok")))(
      new Request("http://localhost/")
    )
    expect(res.headers.get("x-request-id")).toBeNull()
    expect(res.headers.get("x-order")).toBe("first,second")
    expect(res.headers.get("x-effect")).toBe("yes")
  })
})
