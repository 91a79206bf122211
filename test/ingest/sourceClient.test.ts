import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { FetchHttpClient } from "@effect/platform"
import { Duration, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseRetryAfter } from "../../src/domain/ingest/SourceFailure.js"
import { makeSourceClient } from "../../src/infra/ingest/SourceClient.js"

/** A source's HTTP client against a real server that answers its first request 429, Retry-After an hour. */
describe("a source's client after a long Retry-After", () => {
  let server: http.Server
  let requests = 0
  let base = ""
  beforeAll(async () => {
    server = http.createServer((_, response) => {
      requests++
      if (requests === 1) response.writeHead(429, { "retry-after": "3600" }).end()
      else response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it("sends no request to the source before the hour has passed: the next read fails unsent", async () => {
    const [first, second] = await Effect.runPromise(
      Effect.gen(function* () {
        const client = yield* makeSourceClient({ source: "ted", spacing: Duration.zero, userAgent: "test" })
        const first = yield* Effect.either(client.getJson(`${base}/search`))
        const second = yield* Effect.either(client.getJson(`${base}/search`))
        return [first, second] as const
      }).pipe(Effect.provide(FetchHttpClient.layer))
    )
    expect(requests).toBe(1)
    expect(first._tag === "Left" && first.left.reason).toBe("rate-limited")
    expect(second._tag === "Left" && second.left.message).toMatch(/asked for no request before/)
    // The wait left travels with the failure, for the poll's schedule.
    const left = second._tag === "Left" ? second.left.retryAfter : undefined
    expect(left !== undefined && Duration.toMinutes(left)).toBeGreaterThan(59)
  })

  it("a Retry-After beyond a day is read as a day (seconds or an HTTP date years ahead)", () => {
    const day = Duration.toMillis(Duration.hours(24))
    expect(Duration.toMillis(parseRetryAfter("999999999", 0)!)).toBe(day)
    expect(Duration.toMillis(parseRetryAfter("Fri, 01 Jan 2100 00:00:00 GMT", Date.parse("2026-11-27"))!)).toBe(day)
    expect(Duration.toMillis(parseRetryAfter("7200", 0)!)).toBe(7_200_000)
  })
})
