import { createServer } from "node:http"
import { SqlClient } from "@effect/sql"
import { Config, ConfigError, Effect, Either, Layer, Option, Runtime, Schema } from "effect"
import { AppConfig, InvalidConfiguration, readConfig } from "../config/AppConfig.js"
import { clockNow } from "../db/ClockNow.js"
import { PgPool } from "../db/PgPool.js"
import { RedisConnection } from "../redis/RedisConnection.js"
import { Metrics, type ScrapeSource } from "./Metrics.js"

/** The variable naming a process's metrics port: METRICS_PORT (API, `npm start`), WORKER_METRICS_PORT. */
export type MetricsPortVariable = "METRICS_PORT" | "WORKER_METRICS_PORT"

/** An optional port, an empty value counting as unset (as for every variable of the service). */
export const metricsPort = (variable: MetricsPortVariable) =>
  Config.string(variable).pipe(
    Config.withDefault(""),
    Config.mapOrFail((text) => {
      if (text.trim() === "") return Either.right(Option.none<number>())
      const port = Number(text.trim())
      return Number.isInteger(port) && port >= 1 && port <= 65535
        ? Either.right(Option.some(port))
        : Either.left(ConfigError.InvalidData([], `${variable}: Expected a port number (1-65535), got "${text}"`))
    })
  )

const QueueRow = Schema.Struct({
  kind: Schema.String,
  status: Schema.String,
  jobs: Schema.Number,
  oldest_due_seconds: Schema.NullOr(Schema.Number)
})
const IngestRow = Schema.Struct({
  name: Schema.String,
  enabled: Schema.Boolean,
  lag_seconds: Schema.NullOr(Schema.Number),
  failing: Schema.Boolean
})

/**
 * What a scrape reads from PostgreSQL, as two cheap statements: jobs counted by kind and status (the
 * done ones, kept a day, are left out), and each source's time since its last successful poll.
 * Several gauges of one scrape ask for each; they share one read. Both compare with the service's
 * Clock, not PostgreSQL's now(): `run_at` and `poller_alive_until` were written from it, and /ready
 * and `sources status` judge them by it too.
 */
export const scrapeSource = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const pool = yield* PgPool
  const runtime = yield* Effect.runtime<never>()
  const run = <A>(effect: Effect.Effect<A, unknown>) => Runtime.runPromise(runtime)(effect)
  // The gauges of one scrape are collected at once and share one read; the next scrape reads afresh.
  const sharedWhilePending = <A>(read: () => Promise<A>) => {
    let pending: Promise<A> | undefined
    return () => {
      pending ??= read().finally(() => {
        pending = undefined
      })
      return pending
    }
  }
  const queue = sharedWhilePending(() =>
    run(
      Effect.flatMap(
        clockNow,
        (now) => sql`
        SELECT kind, status, count(*)::int AS jobs,
               extract(epoch FROM ${now}::timestamptz - min(run_at)
                 FILTER (WHERE status = 'queued' AND run_at <= ${now}::timestamptz))::float8 AS oldest_due_seconds
        FROM jobs WHERE status IN ('queued', 'running', 'dead') GROUP BY kind, status`
      ).pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(QueueRow))),
        Effect.map((rows) =>
          rows.map((r) => ({ kind: r.kind, status: r.status, jobs: r.jobs, oldestDueSeconds: r.oldest_due_seconds }))
        )
      )
    )
  )
  const ingest = sharedWhilePending(() =>
    run(
      Effect.flatMap(
        clockNow,
        (now) => sql`
        SELECT name, coalesce(poller_alive_until > ${now}::timestamptz, false) AS enabled,
               extract(epoch FROM ${now}::timestamptz - last_success_at)::float8 AS lag_seconds,
               (last_error_at IS NOT NULL AND (last_success_at IS NULL OR last_error_at > last_success_at)) AS failing
        FROM ingest_sources`
      ).pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(IngestRow))),
        Effect.map((rows) =>
          rows.map((r) => ({ source: r.name, enabled: r.enabled, lagSeconds: r.lag_seconds, failing: r.failing }))
        )
      )
    )
  )
  return {
    queue,
    ingest,
    pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount })
  } satisfies ScrapeSource
})

/**
 * The process's Prometheus endpoint: `GET /metrics` on its own port (METRICS_PORT for the API and
 * `npm start`, WORKER_METRICS_PORT for a worker) on HOST, off when the variable is unset. Its own
 * node:http server, so a scrape never competes with the API's routes, limits or authentication.
 * A scrape whose database reads fail still answers, with the in-process figures.
 */
export const MetricsEndpointLive = (variable: MetricsPortVariable) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const port = yield* readConfig(metricsPort(variable))
      if (Option.isNone(port)) return
      const metrics = yield* Metrics
      const source = yield* scrapeSource
      yield* Effect.acquireRelease(
        Effect.sync(() => metrics.addScrapeSource(source)),
        (remove) => Effect.sync(remove)
      )
      const redis = yield* RedisConnection
      if (Option.isSome(redis)) {
        const onError = () => metrics.redisErrors.inc()
        yield* Effect.acquireRelease(
          Effect.sync(() => redis.value.on("error", onError)),
          () => Effect.sync(() => redis.value.off("error", onError))
        )
      }
      const { host } = yield* AppConfig
      const server = createServer((request, response) => {
        if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
          response.writeHead(404, { "content-type": "text/plain" }).end("Not found: GET /metrics\n")
          return
        }
        metrics.registry.metrics().then(
          (text) => response.writeHead(200, { "content-type": metrics.registry.contentType }).end(text),
          (error) => response.writeHead(500, { "content-type": "text/plain" }).end(`${String(error)}\n`)
        )
      })
      yield* Effect.acquireRelease(
        Effect.async<void, InvalidConfiguration>((resume) => {
          server.once("error", (error) =>
            resume(Effect.fail(new InvalidConfiguration({ message: `${variable}: ${error.message}` })))
          )
          server.listen(port.value, host, () => resume(Effect.void))
        }),
        () =>
          Effect.async<void>((resume) => {
            server.close(() => resume(Effect.void))
            server.closeAllConnections()
          })
      )
      yield* Effect.logInfo(`Metrics at http://${host}:${port.value}/metrics`)
    })
  )
