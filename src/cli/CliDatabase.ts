import { Duration, Effect, Layer, Option } from "effect"
import { AppConfig } from "../infra/config/AppConfig.js"
import { databaseLive, EMBEDDED_DATABASE } from "../infra/db/Database.js"
import { runningEmbeddedPostgres } from "../infra/db/EmbeddedPostgres.js"
import { PgLive } from "../infra/db/PgPool.js"

/**
 * The longest a statement of the CLI waits for a lock (PostgreSQL's `lock_timeout`). A lock held
 * elsewhere (a long transaction, a migration in progress) then fails the command with one
 * `Database error: … lock timeout` line instead of leaving the operator waiting forever. No statement
 * timeout: a command may run long (a rescore of every company). The API's requests have limits of
 * their own (RequestDatabaseLive), the worker's jobs none.
 */
export const CLI_LOCK_TIMEOUT = Duration.seconds(30)

const pool = { applicationName: "tender-scoring-cli", lockTimeout: CLI_LOCK_TIMEOUT }

/**
 * The database of the CLI: DATABASE_URL, else the embedded cluster under DATA_DIR. When `npm start`
 * already runs that cluster, the CLI connects to it instead of starting a second one.
 */
export const CliDatabaseLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const ownPool = databaseLive({ ...pool, maxConnections: 20 })
    if (Option.isSome(config.databaseUrl)) return ownPool
    const running = yield* runningEmbeddedPostgres({
      dataDir: config.dataDir,
      port: config.embeddedPgPort,
      database: EMBEDDED_DATABASE
    })
    return Option.match(running, {
      onNone: () => ownPool,
      onSome: (url) => PgLive({ url, maxConnections: 4, ...pool })
    })
  })
)
