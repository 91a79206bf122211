import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { FetchHttpClient } from "@effect/platform"
import { Duration, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSourceClient } from "../../src/infra/ingest/SourceClient.js"

/** What the server streams at most: far past the 20 MB read, but an end for a client that reads it all. */
const STREAMED_AT_MOST = 60 * 1024 * 1024

/** A source whose notice XML streams on and on (a source gone wrong), 1 MB a write, as fast as it is read. */
describe("a source's answer larger than 20 MB", () => {
  let server: http.Server
  let written = 0
  let closedEarly = false
  let base = ""
  beforeAll(async () => {
    const chunk = Buffer.alloc(1024 * 1024, " ")
    server = http.createServer(async (_, response) => {
      let resume = () => {}
      response.on("drain", () => resume())
      response.on("close", () => {
        closedEarly = !response.writableFinished
        resume()
      })
      response.writeHead(200, { "content-type": "application/xml" })
      response.write("<notice>")
      while (written < STREAMED_AT_MOST && !response.destroyed) {
        written += chunk.length
        if (!response.write(chunk)) await new Promise<void>((resolve) => (resume = resolve))
      }
      response.end("</notice>")
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  )

  it("fails as an invalid answer, not retried, and the rest is not read", async () => {
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        const client = yield* makeSourceClient({ source: "ted", spacing: Duration.zero, userAgent: "test" })
        return yield* Effect.either(client.getXml(`${base}/notice/1-2026/xml`))
      }).pipe(Effect.provide(FetchHttpClient.layer))
    )
    expect(outcome._tag === "Left" ? `${outcome.left.reason}: ${outcome.left.message}` : "read whole").toMatch(
      /^invalid: ted \/notice\/1-2026\/xml answered more than 20 MB/
    )
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(closedEarly, "the client stopped reading (the connection closed before the end)").toBe(true)
    expect(written).toBeLessThan(STREAMED_AT_MOST)
  })
})
