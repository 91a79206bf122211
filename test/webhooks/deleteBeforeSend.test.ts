import * as net from "node:net"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { makeSelfSignedCertificate, startHttpsReceiver } from "../support/HttpsReceiver.js"
import {
  DispatcherTestLayer,
  deleteWebhookAsTheApiDoes,
  deliveriesOf,
  newMatchingTenders,
  tenantWithWebhooks
} from "./fixtures.js"

const certificate = makeSelfSignedCertificate()

/**
 * A TCP relay to `port` that holds each connection (nothing passes, the TLS handshake waits) until
 * `release`: a receiver whose connection is slow to open, so an attempt is claimed but not yet sent.
 */
const holdingRelay = (port: number) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const held: Array<net.Socket> = []
      let arrived: () => void = () => {}
      const firstArrival = new Promise<void>((resolve) => {
        arrived = resolve
      })
      const server = net.createServer((client) => {
        client.pause()
        held.push(client)
        arrived()
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      return {
        origin: `https://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
        held,
        firstArrival,
        release: () => {
          for (const client of held) {
            const upstream = net.connect(port, "127.0.0.1")
            upstream.on("error", () => client.destroy())
            client.on("error", () => upstream.destroy())
            client.pipe(upstream).pipe(client)
            client.resume()
          }
        },
        close: () =>
          new Promise<void>((resolve) => {
            for (const client of held) client.destroy()
            server.close(() => resolve())
          })
      }
    }),
    (relay) => Effect.promise(() => relay.close())
  )

describe("DELETE /webhooks/:id before an attempt's request is sent", () => {
  layer(DispatcherTestLayer([certificate.cert], { pollEvery: "1 second" }), {
    excludeTestServices: true,
    timeout: 60_000
  })((it) => {
    // Before, the webhook was checked only when the delivery was claimed: a request still connecting
    // then was sent, signed, after the DELETE had returned.
    it.scoped(
      "a delivery claimed before the DELETE, its connection slow to open, is not sent after the DELETE returned",
      () =>
        Effect.gen(function* () {
          const target = yield* Effect.acquireRelease(
            Effect.promise(() => startHttpsReceiver(() => ({ status: 200 }), certificate)),
            (r) => Effect.promise(() => r.close())
          )
          const relay = yield* holdingRelay(Number(new URL(target.origin).port))
          const t = yield* tenantWithWebhooks({ webhooks: [{ url: `${relay.origin}/hook` }] })
          const webhook = t.webhooks[0]!
          yield* newMatchingTenders(1)
          // Claimed and connecting: its connection is held by the relay.
          yield* Effect.promise(() => relay.firstArrival)
          expect((yield* deliveriesOf(webhook.id)).map((d) => d.status)).toEqual(["delivering"])
          yield* deleteWebhookAsTheApiDoes(webhook.id)
          // A connection slow to open (over a second: HttpsWebhookTransport's LATE_CONNECTION_MS).
          yield* Effect.sleep("1500 millis")
          // The connection opens now; the worker gives the attempt up before writing it and drops the
          // connection, or (without the check) sends it.
          relay.release()
          const client = relay.held[0]!
          yield* Effect.promise(
            () =>
              new Promise<void>((resolve) => {
                client.once("close", () => resolve())
                void target.waitFor(1).then(
                  () => resolve(),
                  () => {}
                )
              })
          )
          expect(target.requests).toHaveLength(0)
          const sql = yield* SqlClient.SqlClient
          const attempts = yield* sql`
          SELECT a.attempt_no FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
          WHERE d.webhook_id = ${webhook.id}`.pipe(Effect.orDie)
          expect(attempts).toEqual([])
          expect((yield* deliveriesOf(webhook.id)).map((d) => d.status)).toEqual(["webhook_deleted"])
        })
    )
  })
})
