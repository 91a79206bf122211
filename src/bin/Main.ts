import { NodeRuntime } from "@effect/platform-node"
import { SqlError } from "@effect/sql"
import { Cause, Config, Console, Duration, Effect, Layer, Logger, Option, Runtime } from "effect"
import { DRAIN_DEADLINE } from "../http/Draining.js"
import { HttpServerLive } from "../http/Server.js"
import { AppConfigLive, environmentConfig, loadAppConfig, readConfig } from "../infra/config/AppConfig.js"
import { SecretsLive } from "../infra/config/LocalSecrets.js"
import { migrate } from "../infra/DatabaseSetup.js"
import { BackgroundDatabaseLive, DatabaseUrlLive, RequestDatabaseLive } from "../infra/db/Database.js"
import { sqlFailureLine } from "../infra/db/SqlFailure.js"
import { ingestConfig } from "../infra/ingest/IngestConfig.js"
import { RateLimitingLive } from "../infra/limits/RateLimits.js"
import { MailerLive } from "../infra/mail/Mailer.js"
import { MetricsEndpointLive, metricsPort } from "../infra/metrics/MetricsEndpoint.js"
import { logFormat, loggerFor } from "../infra/observability/JsonLogger.js"
import { TracingLive, tracingEndpoint } from "../infra/observability/Tracing.js"
import { RepositoriesLive } from "../infra/Repositories.js"
import { RedisConnectionLive } from "../infra/redis/RedisConnection.js"
import { PdfRendererLive } from "../infra/reports/PdfRenderer.js"
import { WebhookTransportLive } from "../infra/webhooks/HttpsWebhookTransport.js"
import { DigestSchedulerLive } from "../workers/DigestScheduler.js"
import { jobHandlers } from "../workers/handlers.js"
import { IngestionLive } from "../workers/IngestPollers.js"
import { MailSenderLive } from "../workers/MailSender.js"
import { ReportWorkFromEnv, reportLease } from "../workers/ReportDispatcher.js"
import { ScoreHistoryPrunerLive } from "../workers/ScoreHistoryPruner.js"
import { ScoreLifecycleLive } from "../workers/ScoreLifecycle.js"
import { SessionSweeperLive } from "../workers/SessionSweeper.js"
import { deliveryLease, WebhookDeliveryFromEnv } from "../workers/WebhookDispatcher.js"
import { jobLease, WorkerFromEnv } from "../workers/Worker.js"

/**
 * Configuration, the database's URL (external, or the embedded server started here), the one Redis
 * connection (shared by the rate limiter and /ready), secrets and rate limiting: what every process
 * needs. The pools on the database are the processes' own: RequestDatabaseLive (time-limited) for
 * the HTTP requests, BackgroundDatabaseLive for migrations and the worker.
 */
export const InfraLive = Layer.mergeAll(DatabaseUrlLive, SecretsLive, RateLimitingLive()).pipe(
  Layer.provideMerge(RedisConnectionLive),
  Layer.provideMerge(AppConfigLive)
)

/**
 * `layer` (the HTTP server, the metrics endpoint) over repositories of its own on the request pool,
 * whose statements have time limits (RequestDatabaseLive). Built apart (Layer.fresh): a layer is
 * otherwise built once per process however many times it is named, so a repository the server and
 * the worker both name (ReportJobsRepoLive, SecretBoxLive, ...) would run on whichever pool came
 * first in `npm start`.
 */
export const onRequestPool = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  Layer.fresh(layer.pipe(Layer.provide(RepositoriesLive), Layer.provide(RequestDatabaseLive)))

/** Applies pending migrations before anything that depends on the schema starts. */
export const MigrateOnStart = Layer.effectDiscard(
  migrate.pipe(
    Effect.tap((applied) =>
      applied.length > 0 ? Effect.logInfo(`Applied migrations: ${applied.join(", ")}`) : Effect.void
    )
  )
)

/**
 * The longest an API process takes to stop after SIGTERM or SIGINT: its drain (DRAIN_DEADLINE, after
 * which the connections still open are closed), then 3 s for the rest (the pool's close). Past it the
 * process exits 0, whatever is still closing, with a warning: a safety net, since the request pool's
 * limits (RequestDatabaseLive: 15 s a statement, 20 s an answer) end a request's statements within
 * the drain, and the pool's close is itself bounded (1 s).
 */
export const API_STOP_LIMIT = Duration.sum(DRAIN_DEADLINE, Duration.seconds(3))

/** Exits the process `limit` after the first SIGTERM or SIGINT, if it has not ended by then. */
const ExitAfterSignal = (limit: Duration.Duration) =>
  Layer.effectDiscard(
    Effect.map(Effect.runtime<never>(), (runtime) => {
      const arm = () => {
        const timer = setTimeout(() => {
          Runtime.runSync(runtime)(
            Effect.logWarning(`Shutdown: not finished ${Duration.toSeconds(limit)} s after the signal; exiting`)
          )
          process.exit(0)
        }, Duration.toMillis(limit))
        // Only a process that would otherwise stay up is ended by it.
        timer.unref()
      }
      process.once("SIGTERM", arm)
      process.once("SIGINT", arm)
    })
  )

/**
 * The API process: HTTP server over the repositories on the request pool, migrations applied first
 * (on a pool without time limits); /metrics on METRICS_PORT; stopped within API_STOP_LIMIT of a signal.
 */
export const ApiProcess = Layer.merge(
  onRequestPool(Layer.merge(HttpServerLive, MetricsEndpointLive("METRICS_PORT"))),
  ExitAfterSignal(API_STOP_LIMIT)
).pipe(
  Layer.provide(MigrateOnStart.pipe(Layer.provide(BackgroundDatabaseLive))),
  Layer.provide(InfraLive),
  Layer.provide(TracingLive("tender-scoring-api"))
)

/**
 * What a worker runs in the background: the job dispatcher with every registered handler, the
 * webhook-delivery actor over the outbound HTTPS transport, the mail sender, the report actor over
 * its renderer process (one warm Chromium), the pruner of replaced score versions, the sweep of ended
 * login sessions, the scores' partitions and retention (ScoreLifecycle), the daily
 * digest's hourly schedule, and the pollers of live ingestion (off unless INGEST_SOURCES names a source).
 */
export const BackgroundWorkLive = Layer.mergeAll(
  WorkerFromEnv(jobHandlers),
  WebhookDeliveryFromEnv.pipe(Layer.provide(WebhookTransportLive)),
  ReportWorkFromEnv.pipe(Layer.provide(PdfRendererLive)),
  MailSenderLive().pipe(Layer.provide(MailerLive)),
  ScoreHistoryPrunerLive,
  SessionSweeperLive,
  ScoreLifecycleLive,
  DigestSchedulerLive,
  IngestionLive
)

/**
 * The variables the background work's layers read (leases, live ingestion), for `launch` to check
 * before anything starts: a malformed one stops a worker (and `npm start`) before it migrates the
 * database or starts a runner.
 */
export const BackgroundWorkVariables = Config.all([jobLease, reportLease, deliveryLease, ingestConfig])

/**
 * A worker process: the background work over the repositories, migrations applied first; /metrics
 * on WORKER_METRICS_PORT (the renderer process's renders are counted here, where they are awaited).
 */
export const WorkerProcess = Layer.merge(BackgroundWorkLive, MetricsEndpointLive("WORKER_METRICS_PORT")).pipe(
  Layer.provide(MigrateOnStart),
  Layer.provide(RepositoriesLive),
  Layer.provide(BackgroundDatabaseLive),
  Layer.provide(InfraLive),
  Layer.provide(TracingLive("tender-scoring-worker"))
)

/** Errors whose message is written for an operator: printed as one line, without a stack trace. */
const operatorMessage = (error: unknown): Option.Option<string> => {
  // @effect/sql's own message ("Failed to execute statement") needs PostgreSQL's reason beside it.
  if (error instanceof SqlError.SqlError) return Option.some(sqlFailureLine(error))
  return typeof error === "object" &&
    error !== null &&
    "_tag" in error &&
    ["InvalidConfiguration", "EmbeddedPostgresError", "RedisError", "CliFailure"].includes(String(error._tag)) &&
    "message" in error
    ? Option.some(String(error.message) || String((error as { cause?: unknown }).cause))
    : Option.none()
}

/** Runs a process's program: log level from LOG_LEVEL, clean shutdown on SIGINT/SIGTERM, exit 1 on failure. */
export const runProcess = <E>(program: Effect.Effect<unknown, E, never>) =>
  program.pipe(
    Effect.tapErrorCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.void
        : Option.match(Cause.failureOption(cause).pipe(Option.flatMap(operatorMessage)), {
            onSome: (line) => Console.error(line),
            onNone: () => Console.error(Cause.pretty(cause))
          })
    ),
    Effect.withConfigProvider(environmentConfig()),
    // The logger is chosen by `launch` (LOG_FORMAT), not added beside it.
    NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
  )

/**
 * Builds and runs a process's layers until interrupted, logging at LOG_LEVEL in LOG_FORMAT.
 * `variables`: what the process's own layers read besides AppConfig (BackgroundWorkVariables).
 */
export const launch = <E>(
  layer: Layer.Layer<never, E, never>,
  variables: Config.Config<unknown> = Config.succeed(undefined)
) =>
  Effect.gen(function* () {
    const config = yield* loadAppConfig
    // Checked here, before anything starts (migrations included), like the variables of AppConfig.
    const [format] = yield* readConfig(
      Config.all([
        logFormat,
        metricsPort("METRICS_PORT"),
        metricsPort("WORKER_METRICS_PORT"),
        tracingEndpoint,
        variables
      ])
    )
    return yield* Layer.launch(layer).pipe(
      Logger.withMinimumLogLevel(config.logLevel),
      Effect.provide(loggerFor(format))
    )
  })
