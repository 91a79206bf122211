import { randomUUID } from "node:crypto"
import {
  type Cause,
  Clock,
  Config,
  Duration,
  Effect,
  Layer,
  Option,
  Queue,
  Redacted,
  Ref,
  Schedule,
  Stream
} from "effect"
import { TENDER_MATCHED } from "../domain/webhooks/DeliverySchedule.js"
import { signDelivery } from "../domain/webhooks/Signature.js"
import { EmailOutboxLive } from "../infra/mail/EmailOutbox.js"
import {
  type AttemptResult,
  type ClaimedDelivery,
  DeliveryQueue,
  DeliveryQueueLive
} from "../infra/webhooks/DeliveryQueue.js"
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
/** Scheduler turns the claim loop yields before claiming, so finishing attempts are claimed for together. */
const BATCH_YIELDS = 4

/** The headers of spec 6.1 for one attempt, signed with that attempt's timestamp (Unix seconds). */
export const deliveryHeaders = (deliveryId: string, secret: string, timestampSeconds: string, body: string) => ({
  "Content-Type": "application/json",
  "X-SVC-Signature": signDelivery(secret, timestampSeconds, body),
  "X-SVC-Event": TENDER_MATCHED,
  "X-SVC-Timestamp": timestampSeconds,
  "X-SVC-Delivery": deliveryId
})

/**
 * The webhook-delivery actor of a worker: claims due deliveries (woken by NOTIFY, by the timer of
 * the next due retry, and by polling), sends each attempt in its own fiber and records its outcome.
 * In flight at once: at most `maxInFlight` in all and `maxInFlightPerWebhook` per webhook, so a slow
 * or dead receiver holds a few slots and never the worker. A reaper returns the deliveries of dead
 * workers to the queue once their lease ran out (at-least-once).
 */
export const WebhookDispatcherLive = (
  options: DispatcherOptions = {}
): Layer.Layer<never, never, DeliveryQueue | SecretBox | WebhookTransport> =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const queue = yield* DeliveryQueue
      const box = yield* SecretBox
      const transport = yield* WebhookTransport
      const workerId = `webhooks-${randomUUID()}`
      const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT
      const perWebhook = options.maxInFlightPerWebhook ?? DEFAULT_MAX_IN_FLIGHT_PER_WEBHOOK
      const pollEvery = Duration.decode(options.pollEvery ?? Duration.seconds(5))
      const lease = options.lease ?? DEFAULT_LEASE

      /** Attempts in flight per webhook (only webhooks with at least one). */
      const inFlight = yield* Ref.make(new Map<string, number>())
      const total = (m: ReadonlyMap<string, number>) => [...m.values()].reduce((a, b) => a + b, 0)
      const wake = yield* Queue.sliding<void>(1)
      /** When the pump last looked for due deliveries: anything due by then was claimable or bounded. */
      const lastClaimAt = yield* Ref.make(0)
      const scope = yield* Effect.scope

      const adjust = (webhookId: string, by: number) =>
        Ref.update(inFlight, (m) => {
          const next = new Map(m)
          const n = (next.get(webhookId) ?? 0) + by
          if (n > 0) next.set(webhookId, n)
          else next.delete(webhookId)
          return next
        })

      const attempt = (delivery: ClaimedDelivery) =>
        Effect.gen(function* () {
          const startedAt = yield* Clock.currentTimeMillis
          const timestamp = String(Math.floor(startedAt / 1000))
          const send = (secret: string) =>
            transport
              .send({
                url: delivery.url,
                headers: deliveryHeaders(delivery.id, secret, timestamp, delivery.body),
                body: delivery.body
              })
              .pipe(
                Effect.match({
                  onSuccess: ({ status }): AttemptResult => ({ _tag: "response", status }),
                  onFailure: (failure): AttemptResult => ({
                    _tag: "error",
                    message: `${failure.reason}: ${failure.message}`
                  })
                })
              )
          // A secret sealed under another MASTER_KEY cannot sign: that is a failed attempt, recorded
          // and retried like any other, so the delivery ends `failed` (and e-mailed) instead of
          // being reclaimed forever.
          const result: AttemptResult = yield* box.open(delivery.secretCiphertext).pipe(
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
          const finished = yield* queue.finish(workerId, delivery, startedAt, result)
          if (finished === "lost") {
            yield* Effect.logInfo(`Webhook delivery ${delivery.id}: outcome dropped (deleted or reaped meanwhile)`)
          } else if (finished === "failed") {
            yield* Effect.logWarning(`Webhook delivery ${delivery.id} failed after attempt ${delivery.attemptNo}`)
          }
        }).pipe(
          Effect.catchAllCause((cause) => Effect.logError(`Webhook delivery ${delivery.id}: attempt aborted`, cause)),
          Effect.ensuring(Effect.zipRight(adjust(delivery.webhookId, -1), Queue.offer(wake, undefined)))
        )

      /**
       * Lets the attempts that finish together free their slots before one claim takes them all:
       * a few scheduler turns (no clock involved, so TestClock-driven tests never stall), which
       * turns a claim per finishing attempt into a claim per batch of them.
       */
      const settle = Effect.yieldNow().pipe(Effect.repeatN(BATCH_YIELDS))

      /** Claims while there is room and something due; each attempt runs in its own fiber. */
      const pump: Effect.Effect<void> = Effect.gen(function* () {
        yield* settle
        yield* Ref.set(lastClaimAt, yield* Clock.currentTimeMillis)
        const current = yield* Ref.get(inFlight)
        const room = maxInFlight - total(current)
        if (room <= 0) return
        const { claimed, more } = yield* queue.claim({ workerId, limit: room, perWebhook, inFlight: current, lease })
        for (const delivery of claimed) {
          yield* adjust(delivery.webhookId, 1)
          yield* Effect.forkIn(attempt(delivery), scope)
        }
        // Claim again only when the scan may have stopped short of due rows of other webhooks.
        if (claimed.length > 0 && more) yield* pump
      })

      /** Sleeps until the next due retry (or the polling interval), unless woken earlier. */
      const waitForWork = Effect.gen(function* () {
        // Woken meanwhile (an attempt finished, a NOTIFY): claim again without asking for due times.
        if ((yield* Queue.poll(wake))._tag === "Some") return
        const nextDue = yield* queue.nextDueAt
        // Read after the query, so the timer is measured from the time it is set.
        const now = yield* Clock.currentTimeMillis
        const lookedAt = yield* Ref.get(lastClaimAt)
        // A delivery due when the pump looked was left there because its webhook (or this worker) is
        // at its bound: a finishing attempt wakes the loop, so only a later due time sets a timer.
        const untilDue = Option.match(nextDue, {
          onNone: () => pollEvery,
          onSome: (at) => (at > lookedAt ? Duration.min(pollEvery, Duration.millis(Math.max(0, at - now))) : pollEvery)
        })
        yield* Effect.raceFirst(Queue.take(wake), Effect.sleep(untilDue))
      })

      yield* queue.wakeups.pipe(
        Stream.runForEach(() => Queue.offer(wake, undefined)),
        Effect.forkIn(scope)
      )
      // A failing round (the database away) is logged and retried: the actor outlives outages.
      const survive = (what: string) => (cause: Cause.Cause<never>) =>
        Effect.zipRight(Effect.logError(`Webhook dispatcher: ${what} failed`, cause), Effect.sleep(Duration.seconds(1)))
      yield* Effect.zipRight(pump, waitForWork).pipe(
        Effect.catchAllCause(survive("claim round")),
        Effect.forever,
        Effect.forkIn(scope)
      )
      yield* queue.reap.pipe(
        Effect.tap((n) =>
          n > 0 ? Effect.logWarning(`Returned ${n} expired webhook delivery(s) to the queue`) : Effect.void
        ),
        Effect.catchAllCause(survive("reaper")),
        Effect.repeat(Schedule.spaced(options.reapEvery ?? Duration.seconds(15))),
        Effect.forkIn(scope)
      )
      yield* Effect.logInfo(`Webhook dispatcher ${workerId}: ${maxInFlight} in flight, ${perWebhook} per webhook`)
    })
  )

/** The dispatcher with its queue, the secret box and the e-mail outbox; needs a transport and the database. */
export const WebhookDeliveryLive = (options: DispatcherOptions = {}) =>
  WebhookDispatcherLive(options).pipe(
    Layer.provide(Layer.merge(DeliveryQueueLive.pipe(Layer.provide(EmailOutboxLive)), SecretBoxLive))
  )

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

/** The delivery actor as a worker process runs it, its lease read from the environment. */
export const WebhookDeliveryFromEnv = Layer.unwrapEffect(
  Effect.map(deliveryLease, (lease) =>
    WebhookDeliveryLive({ lease, reapEvery: Duration.min(Duration.seconds(15), Duration.times(lease, 0.5)) })
  )
)
