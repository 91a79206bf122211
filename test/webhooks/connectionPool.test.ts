import * as https from "node:https"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { AppConfig } from "../../src/infra/config/AppConfig.js"
import { makeWebhookTransportLayer } from "../../src/infra/webhooks/HttpsWebhookTransport.js"
import { WebhookTransport } from "../../src/infra/webhooks/WebhookTransport.js"
import { makeSelfSignedCertificate } from "../support/HttpsReceiver.js"
import { testConfig } from "../support/TestServer.js"

const RECEIVERS = 260
const cert = makeSelfSignedCertificate()
const servers: Array<https.Server> = []
const origins: Array<string> = []

beforeAll(async () => {
  for (let i = 0; i < RECEIVERS; i++) {
    const server = https.createServer(cert, (req, res) => {
      req.resume()
      req.on("end", () => res.writeHead(200).end("ok"))
    })
    // Like nginx (keepalive_timeout 75 s): the receivers keep idle keep-alive connections open.
    server.keepAliveTimeout = 75_000
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    servers.push(server)
    origins.push(`https://127.0.0.1:${(server.address() as AddressInfo).port}`)
  }
}, 60_000)
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections()
    server.close()
  }
})

// The worker's transport with its production pool and 30 s attempt timeout.
const Transport = Layer.suspend(() =>
  makeWebhookTransportLayer({ extraCaCertificates: [cert.cert] }).pipe(
    Layer.provide(Layer.succeed(AppConfig, testConfig({ webhookAllowPrivateNetworks: true })))
  )
)
const post = (origin: string) =>
  Effect.flatMap(WebhookTransport, (t) =>
    t.send({ url: `${origin}/hook`, headers: { "content-type": "application/json" }, body: "{}" })
  )

describe("webhook transport: the connection pool", () => {
  // Before, the pool allowed 256 sockets in all, idle ones counted: a 257th receiver waited about
  // 29 s, unsent, for another receiver's idle socket to expire.
  it.live(
    "idle connections to other receivers never hold up a delivery to a new receiver",
    () =>
      Effect.gen(function* () {
        // 256 receivers answered (32 at a time), their connections now idle in the pool.
        const first = yield* Effect.forEach(origins.slice(0, 256), (o) => Effect.either(post(o)), { concurrency: 32 })
        expect(first.filter(Either.isLeft)).toHaveLength(0)
        const started = Date.now()
        expect(yield* post(origins[256]!)).toEqual({ status: 200 })
        expect(Date.now() - started, "ms before the 257th receiver answered").toBeLessThan(15_000)
      }).pipe(Effect.provide(Transport)),
    90_000
  )
})
