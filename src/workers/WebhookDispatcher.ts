import type { SqlClient } from "@effect/sql"
import { Clock, Config, Duration, Effect, Layer, Option, Redacted } from "effect"
import { TENDER_MATCHED } from "../domain/webhooks/DeliverySchedule.js"
import { signDelivery } from "../domain/webhooks/Signature.js"
import { readConfig } from "../infra/config/AppConfig.js"
import { Metrics } from "../infra/metrics/Metrics.js"
import type { JobQueue } from "../infra/queue/JobQueue.js"
import { handleStarted, JobRunnerLive, settleAfterRun } from "../infra/queue/JobRunner.js"
import {
  type AttemptResult,
  Deliveries,
  DeliveriesLive,
  DeliverWebhook,
  startedDelivery
} from "../infra/webhooks/Deliveries.js"
import { SecretBox, SecretBoxLive } from "../infra/webhooks/SecretBox.js"
import { WebhookTransport } from "../infra/webhooks/WebhookTransport.js"

export interface DispatcherOptions {
  /** Attempts in flight at once in this worker (all webhooks). */
  readonly maxInFlight?: number
  /** Attempts in flight at once in this worker for one webhook: a slow receiver holds at most these. */
  readonly maxInFlightPerWebhook?: number
  /** Safety-net polling when no NOTIFY arrives (a retry that falls due is woken by its own timer). */
  readonly pollEvery?: Duration.DurationInput
  /** How long a claim is held; longer than the transport's 30 s timeout. */
  readonly lease?: Duration.DurationInput
  readonly reapEvery?: Duration.DurationInput
}

export const DEFAULT_MAX_IN_FLIGHT = 128
export const DEFAULT_MAX_IN_FLIGHT_PER_WEBHOOK = 8
export const DEFAULT_LEASE = Duration.minutes(2)

/** An attempt's outcome as counted in `webhook_deliveries_total`. */
const DELIVERY_OUTCOMES = { succeeded: "delivered", pending: "retry", failed: "failed", lost: "lost" } as const

/** The headers of spec 6.1 for one attempt, signed with that attempt's timestamp (Unix seconds). */
export const deliveryHeaders = (deliveryId: string, secret: string, timestampSeconds: string, body: string) => ({
  "Content-Type": "application/json",
  "X-SVC-Signature": signDelivery(secret, timestampSeconds, body),
  "X-SVC-Event": TENDER_MATCHED,
  "X-SVC-Timestamp": timestampSeconds,
  "X-SVC-Delivery": deliveryId
})

/**
 * Ends a delivery that was not sent because it may not be (its webhook deleted, or its tenant's plan
 * without webhooks since a downgrade); the latter is logged, as nothing else says why it failed.
 */
const endUnsent = (deliveryId: string) =>
  Effect.flatMap(Deliveries, (deliveries) => deliveries.endIfUndeliverable(deliveryId)).pipe(
    Effect.tap((ended) =>
      Option.contains(ended, "failed")
        ? Effect.logInfo(`Webhook delivery ${deliveryId}: not sent, its tenant's plan no longer has webhooks (failed)`)
        : Effect.void
    )
  )

/**
 * A `webhook.deliver` job: one signed attempt of its delivery, its outcome recorded with the job's
 * settlement (made by the runner, tried again while it fails; the delivery retried on its own schedule). A delivery that ended meanwhile (its webhook
 * deleted) or may no longer be sent (its tenant downgraded below Consultant) is not sent.
 */
export const deliverWebhookJob = handleStarted(DeliverWebhook, {
  // The deliveries of one claim are started (marked `delivering` and read) in the claim's statement.
  start: Effect.flatMap(Deliveries, (deliveries) => deliveries.startClaimed),
  run: (payload, job, started) =>
    Effect.gen(function* () {
      const deliveries = yield* Deliveries
      // Not started: the delivery ended meanwhile, or its webhook was deleted (a delivery the
      // DELETE could not see yet ends here as the others did), or its tenant's plan lost webhooks.
      if (Option.isNone(started)) {
        yield* endUnsent(payload.deliveryId)
        return "completed" as const
      }
      const delivery = startedDelivery(started.value)
      const startedAt = yield* Clock.currentTimeMillis
      const timestamp = String(Math.floor(startedAt / 1000))
      const transport = yield* WebhookTransport
      const send = (secret: string) =>
        transport
          .send({
            url: delivery.url,
            headers: deliveryHeaders(delivery.id, secret, timestamp, delivery.body),
            body: delivery.body,
            // Checked again before the first byte when the connection was slow to open: the webhook may
            // have been deleted (or the tenant downgraded) since the claim.
            stillDeliverable: deliveries.stillDeliverable(delivery.id)
          })
          .pipe(
            Effect.match({
              onSuccess: ({ status }): AttemptResult | "withdrawn" => ({ _tag: "response", status }),
              onFailure: (failure): AttemptResult | "withdrawn" =>
                failure.reason === "cancelled"
                  ? "withdrawn"
                  : { _tag: "error", message: `${failure.reason}: ${failure.message}` }
            })
          )
      // A secret sealed under another MASTER_KEY cannot sign: that is a failed attempt, recorded and
      // retried like any other, so the delivery ends `failed` (and e-mailed) instead of being
      // reclaimed forever.
      const result = yield* (yield* SecretBox).open(delivery.secretCiphertext).pipe(
        Effect.exit,
        Effect.flatMap((opened) =>
          opened._tag === "Success"
            ? send(Redacted.value(opened.value))
            : Effect.succeed<AttemptResult>({
                _tag: "error",
                message: "secret: cannot be decrypted with this MASTER_KEY"
              })
        )
      )
      // Its webhook deleted (or its tenant downgraded) between the claim and the first byte: nothing
      // was sent, no attempt to record.
      if (result === "withdrawn") {
        yield* endUnsent(payload.deliveryId)
        return "completed" as const
      }
      const metrics = yield* Metrics
      // Settled by the runner after the attempt, tried again while the database fails it: an attempt
      // that reached its receiver is not recorded as failed (and sent again) because its record failed.
      // Its `lost` (deleted or reaped meanwhile) is counted here, not retried.
      return yield* settleAfterRun(
        deliveries.finish(job, delivery, startedAt, result).pipe(
          Effect.tap((finished) => {
            metrics.webhookDeliveries.inc({ outcome: DELIVERY_OUTCOMES[finished] })
            return finished === "lost"
              ? Effect.logInfo(`Webhook delivery ${delivery.id}: outcome dropped (deleted or reaped meanwhile)`)
              : finished === "failed"
                ? Effect.logWarning(`Webhook delivery ${delivery.id} failed after attempt ${delivery.attemptNo}`)
                : Effect.void
          }),
          Effect.as(true)
        )
      )
    }),
  onDead: ({ deliveryId }) => Effect.flatMap(Deliveries, (deliveries) => deliveries.recordDead(deliveryId))
})

/**
 * The webhook runner of a worker, on the one queue: at most `maxInFlight` attempts in flight in all
 * and `maxInFlightPerWebhook` per webhook (the job's group), so a slow or dead receiver holds a few
 * slots and never the worker. Deliveries of dead workers return when their lease runs out
 * (at-least-once).
 */
export const WebhookDispatcherLive = (
  options: DispatcherOptions = {}
): Layer.Layer<never, never, Deliveries | SecretBox | WebhookTransport | JobQueue | SqlClient.SqlClient> =>
  JobRunnerLive([deliverWebhookJob], {
    name: "webhooks",
    concurrency: options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT,
    perGroup: options.maxInFlightPerWebhook ?? DEFAULT_MAX_IN_FLIGHT_PER_WEBHOOK,
    lease: options.lease ?? DEFAULT_LEASE,
    pollEvery: options.pollEvery ?? Duration.seconds(5),
    ...(options.reapEvery === undefined ? {} : { reapEvery: options.reapEvery })
  })

/** The dispatcher with its deliveries and the secret box; needs a transport and the database. */
export const WebhookDeliveryLive = (options: DispatcherOptions = {}) =>
  WebhookDispatcherLive(options).pipe(Layer.provide(Layer.merge(DeliveriesLive, SecretBoxLive)))

/**
 * `WEBHOOK_DELIVERY_LEASE_SECONDS` (default 120): how long a claimed delivery is held before the
 * reaper (every lease/2, at most 15 s) gives it to another worker. Must exceed the 30 s request
 * timeout in production; tests of a killed worker set a few seconds.
 */
export const deliveryLease = Config.integer("WEBHOOK_DELIVERY_LEASE_SECONDS").pipe(
  Config.validate({ message: "WEBHOOK_DELIVERY_LEASE_SECONDS: Expected a positive integer", validation: (n) => n > 0 }),
  Config.withDefault(120),
  Config.map(Duration.seconds)
)

/** The delivery runner as a worker process runs it, its lease read from the environment. */
export const WebhookDeliveryFromEnv = Layer.unwrapEffect(
  Effect.map(readConfig(deliveryLease), (lease) =>
    WebhookDeliveryLive({ lease, reapEvery: Duration.min(Duration.seconds(15), Duration.times(lease, 0.5)) })
  )
)
