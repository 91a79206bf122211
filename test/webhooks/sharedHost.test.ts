import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { makeSelfSignedCertificate, type Responder, startHttpsReceiver } from "../support/HttpsReceiver.js"
import { DispatcherTestLayer, deliveriesOf, eventually, newMatchingTenders, tenantWithWebhooks } from "./fixtures.js"

const certificate = makeSelfSignedCertificate()

/** A receiver for the test; its webhooks are deactivated at the end so no later event reaches it. */
const receiver = (responder: Responder) =>
  Effect.acquireRelease(
    Effect.promise(() => startHttpsReceiver(responder, certificate)),
    (r) =>
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`UPDATE webhooks SET active = false WHERE url LIKE ${`${r.origin}/%`}`
      ).pipe(Effect.orDie, Effect.zipRight(Effect.promise(() => r.close())))
  )

describe("webhooks that share a receiver host", () => {
  layer(DispatcherTestLayer([certificate.cert], { pollEvery: "1 second" }), {
    excludeTestServices: true,
    timeout: 120_000
  })((it) => {
    // Before, the pool allowed 32 sockets per host: 5 slow webhooks of one tenant filled them, and
    // another tenant's delivery to that host waited, unsent, until it was recorded as a timeout.
    it.scoped("one tenant's slow webhooks at a shared host do not hold up another tenant's webhook at that host", () =>
      Effect.gen(function* () {
        // One HTTPS host (a shared integration platform), two tenants on different paths.
        const shared = yield* receiver((request) =>
          request.path.startsWith("/slow") ? { status: 200, delayMs: 60_000 } : { status: 200 }
        )
        yield* tenantWithWebhooks({ webhooks: [1, 2, 3, 4, 5].map((n) => ({ url: `${shared.origin}/slow${n}` })) })
        // 8 tenders: 40 deliveries, all in flight at once (8 per webhook), none answered.
        yield* newMatchingTenders(8)
        yield* Effect.promise(() => shared.waitFor(40))
        const b = yield* tenantWithWebhooks({ webhooks: [{ url: `${shared.origin}/fast` }] })
        yield* newMatchingTenders(1)
        const [delivered] = yield* eventually(
          Effect.map(deliveriesOf(b.webhooks[0]!.id), (rows) =>
            rows.length === 1 && rows[0]!.status === "succeeded" ? rows : undefined
          ),
          30
        )
        expect(delivered!.last_status_code).toBe(200)
        expect(shared.requests.filter((r) => r.path === "/fast")).toHaveLength(1)
      })
    )
  })
})
