import { randomBytes } from "node:crypto"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Logger, LogLevel, ManagedRuntime, Option, Redacted } from "effect"
import { DEFAULT_SESSION_MAX_DAYS } from "../../src/domain/RefreshToken.js"
import { trustNone } from "../../src/domain/TrustProxy.js"
import { createApiServer, ServeLive } from "../../src/http/Server.js"
import { AppConfig, type AppConfigShape, DEFAULT_MAX_BODY_BYTES } from "../../src/infra/config/AppConfig.js"
import { Secrets } from "../../src/infra/config/LocalSecrets.js"
import { projectFile } from "../../src/infra/config/ProjectFiles.js"
import { ReadPoolLive } from "../../src/infra/db/PgPool.js"
import { RateLimitingLive } from "../../src/infra/limits/RateLimits.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { TestDatabaseLive, TestDatabaseUrl } from "./TestDatabase.js"
import { TestRedisLive, testRedisUrl } from "./testRedis.js"

/** Overrides of the test configuration; `rateLimits` may name only the limits a test cares about. */
export type TestConfigOverrides = Omit<Partial<AppConfigShape>, "rateLimits"> & {
  readonly rateLimits?: Partial<AppConfigShape["rateLimits"]>
}

/** Configuration for tests: loopback, the file's database, the run's Redis when there is one. */
export const testConfig = ({ rateLimits, ...overrides }: TestConfigOverrides = {}): AppConfigShape => ({
  databaseUrl: Option.none(),
  databaseReadUrl: Option.none(),
  redisUrl: Option.map(Option.fromNullable(testRedisUrl()), Redacted.make),
  port: 0,
  host: "127.0.0.1",
  publicBaseUrl: "http://127.0.0.1",
  dataDir: ".data/test",
  embeddedPgPort: 54339,
  masterKey: Option.none(),
  cursorSecret: Option.none(),
  smtpUrl: Option.none(),
  mailFrom: "Tender Scoring <no-reply@example.test>",
  webhookAllowPrivateNetworks: true,
  chromiumPath: Option.fromNullable(process.env.CHROMIUM_PATH),
  logLevel: LogLevel.Warning,
  trustProxy: trustNone,
  corsOrigins: [],
  maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
  scoreRetentionDays: 180,
  deliveryRetentionDays: 30,
  sessionMaxDays: DEFAULT_SESSION_MAX_DAYS,
  webDir: projectFile("dist/web"),
  ...overrides,
  rateLimits: { generalPerMinute: 60, exportPerHour: 20, reportsPerHour: 10, ...rateLimits }
})

export const TestSecretsLive = Layer.sync(Secrets, () => ({
  masterKey: Redacted.make(randomBytes(32)),
  cursorSecret: Redacted.make(randomBytes(32))
}))

/** The ReadPool of `databaseReadUrl`, when a test names one (as poolsLive builds it in a process). */
const testReadPool = (overrides: TestConfigOverrides) =>
  Option.match(Option.flatten(Option.fromNullable(overrides.databaseReadUrl)), {
    onNone: () => Layer.empty,
    onSome: (url) => ReadPoolLive({ url, maxConnections: 5 })
  })

/** Everything a handler may need, on the test file's fresh database. */
export const TestInfraLive = (overrides: TestConfigOverrides = {}) =>
  Layer.mergeAll(
    RepositoriesLive,
    TestSecretsLive,
    // A random prefix per server keeps parallel test files' Redis windows apart.
    RateLimitingLive({ prefix: `tss:test:${randomBytes(4).toString("hex")}:` })
  ).pipe(
    Layer.provideMerge(testReadPool(overrides)),
    // One connection, as in a process: the limiter counts on it and /ready pings it.
    Layer.provideMerge(TestRedisLive),
    Layer.provideMerge(Layer.succeed(AppConfig, testConfig(overrides))),
    Layer.provideMerge(TestDatabaseLive)
  )

/**
 * The real HTTP server on an ephemeral loopback port, over a fresh database. Tests call it with
 * `fetch(baseUrl + path)` and inspect the database through `run`.
 */
export const startTestServer = async (overrides: TestConfigOverrides = {}) => {
  const infra = TestInfraLive(overrides)
  const config = testConfig(overrides)
  // The production app and its request middleware, at the configured log level as `launch` sets it.
  const server = ServeLive.pipe(
    Layer.provide(Logger.minimumLogLevel(config.logLevel)),
    // The production server factory, so the request limits are tested where clients meet them.
    Layer.provideMerge(NodeHttpServer.layer(() => createApiServer(config), { port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(infra)
  )
  const runtime = ManagedRuntime.make(server)
  const { address, databaseUrl } = await runtime.runPromise(
    Effect.all({ address: Effect.map(HttpServer.HttpServer, (s) => s.address), databaseUrl: TestDatabaseUrl })
  )
  if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    databaseUrl,
    /** Runs an effect with the server's services (SqlClient, repositories, config). */
    run: runtime.runPromise,
    close: () => runtime.dispose()
  }
}

export type TestServer = Awaited<ReturnType<typeof startTestServer>>
