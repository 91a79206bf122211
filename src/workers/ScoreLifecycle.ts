import { Clock, Duration, Effect, Layer, Option, Schedule } from "effect"
import { AppConfig } from "../infra/config/AppConfig.js"
import { withLifecycleLease } from "../infra/scoring/LifecycleLease.js"
import { makeScorePartitions } from "../infra/scoring/ScorePartitions.js"
import { makeScoreRetention } from "../infra/scoring/ScoreRetention.js"
import { makeDeliveryRetention } from "../infra/webhooks/DeliveryRetention.js"

/** How often the worker keeps the score partitions ahead and applies the retention policy. */
export const SCORE_LIFECYCLE_EVERY = Duration.hours(6)

/**
 * One round of the data lifecycle (README, "Data lifecycle"), at the Clock's now: the monthly
 * partitions of the coming months exist (and strays in the default partitions move to theirs), then
 * the scores, alerts and match events past retention go, then the webhook deliveries past theirs.
 */
const round = Effect.gen(function* () {
  const { scoreRetentionDays, deliveryRetentionDays } = yield* AppConfig
  const partitions = yield* makeScorePartitions
  const retention = yield* makeScoreRetention
  const deliveryRetention = yield* makeDeliveryRetention
  const now = new Date(yield* Clock.currentTimeMillis)
  const created = yield* partitions.ensure(now)
  const { partitionsDropped, rowsDeleted } = yield* retention.run(now, scoreRetentionDays)
  const deliveriesDeleted = yield* deliveryRetention.run(now, deliveryRetentionDays)
  if (created > 0) yield* Effect.logInfo(`Created ${created} partition(s)`)
  if (partitionsDropped.length > 0 || rowsDeleted > 0)
    yield* Effect.logInfo(
      `Retention (${scoreRetentionDays} days): dropped ${partitionsDropped.join(", ") || "no partition"}, deleted ${rowsDeleted} row(s)`
    )
  if (deliveriesDeleted > 0)
    yield* Effect.logInfo(`Delivery retention (${deliveryRetentionDays} days): deleted ${deliveriesDeleted}`)
  return { created, partitionsDropped, rowsDeleted, deliveriesDeleted }
})

/** The round, or nothing done (all zero) while another worker's round runs (LifecycleLease). */
export const scoreLifecycleRound = withLifecycleLease(round).pipe(
  Effect.map(
    Option.getOrElse(() => ({
      created: 0,
      partitionsDropped: [] as ReadonlyArray<string>,
      rowsDeleted: 0,
      deliveriesDeleted: 0
    }))
  )
)

/**
 * Runs the round at start and every SCORE_LIFECYCLE_EVERY. Every worker runs it; one round runs at a
 * time (a worker that finds another's round running skips its own), and a round that finds the tables
 * busy leaves what it could not lock to the next one (MaintenanceLocks).
 */
export const ScoreLifecycleLive = Layer.scopedDiscard(
  scoreLifecycleRound.pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("Score partitions / retention failed", cause)),
    Effect.repeat(Schedule.spaced(SCORE_LIFECYCLE_EVERY)),
    Effect.forkScoped
  )
)
