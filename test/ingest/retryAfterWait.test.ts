import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, TestClock } from "effect"
import { makeSourceClient } from "../../src/infra/ingest/SourceClient.js"

/** Lets real I/O (the server, the client's sockets) run between two moves of the TestClock. */
const settle = (ms = 15) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/** A real server on loopback for the test's scope; `handler` answers (or hangs). */
const serve = (handler: http.RequestListener) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.promise(async () => {
        const server = http.createServer(handler)
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
        return server
      }),
      (server) =>
        Effect.promise(
          () =>
            new Promise<void>((resolve) => {
              server.closeAllConnections()
              server.close(() => resolve())
            })
        )
    ),
    (server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  )

/**
 * The TED poll's concurrent XML reads, a SEAP retry job beside the poll, the poll's next list page:
 * a request of the source that comes while another's Retry-After runs waits for it unsent.
 */
describe("a request that waits behind another request's Retry-After of 5 minutes (TestClock)", () => {
  it.effect("is sent once the 5 minutes have passed: the wait does not count against its 30 s timeout", () =>
    Effect.gen(function* () {
      const asked: Array<string> = []
      const base = yield* serve((req, res) => {
        asked.push(req.url ?? "")
        if (req.url === "/limited") res.writeHead(429, { "retry-after": "300" }).end()
        else res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}')
      })
      const client = yield* makeSourceClient({ source: "seap", spacing: Duration.zero, userAgent: "test" })
      // One request meets a 429 asking for 5 minutes (no retry of its own here).
      const limited = yield* Effect.either(client.getJson(`${base}/limited`, 0))
      expect(limited._tag === "Left" && limited.left.reason).toBe("rate-limited")
      // Another request of the same source, meanwhile.
      const next = yield* Effect.fork(Effect.either(client.getJson(`${base}/list`)))
      for (let second = 0; second < 298; second += 2) {
        yield* settle()
        yield* TestClock.adjust(Duration.seconds(2))
      }
      expect(asked, "nothing asked before the 5 minutes are over").toEqual(["/limited"])
      for (let second = 298; second < 320; second += 2) {
        yield* settle()
        yield* TestClock.adjust(Duration.seconds(2))
      }
      yield* settle(100)
      const outcome = yield* Fiber.join(next)
      expect(
        outcome._tag === "Right" ? outcome.right : `${outcome.left.reason}: ${outcome.left.message}`,
        `asked of the source: ${JSON.stringify(asked)}`
      ).toEqual({ ok: true })
      expect(asked).toEqual(["/limited", "/list"])
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer))
  )

  it.effect("a source that never answers still fails as a timeout after 30 s", () =>
    Effect.gen(function* () {
      const base = yield* serve(() => {}) // takes the request, never answers
      const client = yield* makeSourceClient({ source: "ted", spacing: Duration.zero, userAgent: "test" })
      const request = yield* Effect.fork(Effect.either(client.getJson(`${base}/search`, 0)))
      yield* settle(50)
      yield* TestClock.adjust(Duration.seconds(29))
      yield* settle()
      expect(request.unsafePoll(), "still waiting at 29 s").toBeNull()
      yield* TestClock.adjust(Duration.seconds(2))
      const outcome = yield* Fiber.join(request)
      expect(outcome._tag === "Left" && outcome.left.reason).toBe("timeout")
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer))
  )
})
