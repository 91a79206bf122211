import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Duration, Effect, ManagedRuntime } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { environmentConfig, loadAppConfig } from "../../src/infra/config/AppConfig.js"
import { ingestConfig } from "../../src/infra/ingest/IngestConfig.js"
import { freePort } from "../hardening/OwnServers.js"
import { databaseUrl as databaseNamed } from "../support/databaseNames.js"
import { TestDatabaseLive, TestDatabaseUrl } from "../support/TestDatabase.js"
import { expectOneLineFailure, runBundledCli, runEntryPoint } from "./processes.js"

/** A process started with a bad variable says which one, in one line, and exits non-zero. */
describe.concurrent("configuration errors", () => {
  const cases: Array<[string, Record<string, string>]> = [
    ["PORT", { PORT: "abc" }],
    ["MASTER_KEY", { MASTER_KEY: "xyz" }],
    ["CURSOR_SECRET", { CURSOR_SECRET: "0123" }],
    ["RATE_LIMIT_EXPORT_PER_HOUR", { RATE_LIMIT_EXPORT_PER_HOUR: "-1" }],
    ["SMTP_URL", { SMTP_URL: "mail.example.com" }],
    ["MAIL_FROM", { MAIL_FROM: "Tender Scoring no-reply" }],
    ["WEBHOOK_ALLOW_PRIVATE_NETWORKS", { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "maybe" }],
    ["EMBEDDED_PG_PORT", { EMBEDDED_PG_PORT: "99999" }],
    ["RATE_LIMIT_GENERAL_PER_MINUTE", { RATE_LIMIT_GENERAL_PER_MINUTE: "0" }],
    ["DATABASE_URL", { DATABASE_URL: "mysql://x" }],
    ["REDIS_URL", { REDIS_URL: "http://localhost:6379" }],
    ["REDIS_URL", { REDIS_URL: "redis://127.0.0.1:1/abc" }],
    ["LOG_LEVEL", { LOG_LEVEL: "loud" }],
    ["PUBLIC_BASE_URL", { PUBLIC_BASE_URL: "ftp://example.com" }],
    ["TRUST_PROXY", { TRUST_PROXY: "10.0.0.0/33" }],
    ["CORS_ORIGINS", { CORS_ORIGINS: "https://app.example.com/" }],
    ["METRICS_PORT", { METRICS_PORT: "70000" }],
    ["LOG_FORMAT", { LOG_FORMAT: "xml" }],
    ["MAX_BODY_BYTES", { MAX_BODY_BYTES: "0" }],
    ["SESSION_MAX_DAYS", { SESSION_MAX_DAYS: "0" }],
    ["OTEL_EXPORTER_OTLP_ENDPOINT", { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }]
  ]

  // Nothing answers at these: a value wrongly accepted fails on the database, never migrates a real one.
  const unreachable = { DATABASE_URL: "postgres://postgres@127.0.0.1:1/nowhere", REDIS_URL: "" }

  it.each(cases)("the API process names %s", async (variable, env) => {
    const line = expectOneLineFailure(await runEntryPoint("api", { ...unreachable, ...env }))
    expect(line).toMatch(/^Invalid configuration: /)
    expect(line).toContain(variable)
    expect(line).not.toContain(`${variable}: ${variable}`)
  })

  it("an unreachable Redis is one line naming REDIS_URL's address, never its password", async () => {
    const line = expectOneLineFailure(
      await runEntryPoint("api", {
        REDIS_URL: "redis://user:s3cret@127.0.0.1:1",
        DATABASE_URL: "postgres://postgres@127.0.0.1:1/nowhere"
      })
    )
    expect(line).toBe("Cannot connect to Redis at REDIS_URL (127.0.0.1:1): connect ECONNREFUSED 127.0.0.1:1")
  })

  it("an unreachable PostgreSQL is one line naming DATABASE_URL and the server's reason", async () => {
    const line = expectOneLineFailure(
      await runEntryPoint("api", {
        REDIS_URL: "",
        DATABASE_URL: "postgres://postgres@127.0.0.1:5432/tss_no_such_database"
      })
    )
    expect(line).toBe('DATABASE_URL: cannot connect to PostgreSQL: database "tss_no_such_database" does not exist')
  })

  it("the ops CLI reports a bad variable the same way", async () => {
    const line = expectOneLineFailure(await runBundledCli(["migrate"], { LOG_LEVEL: "loud" }))
    expect(line).toMatch(/^Invalid configuration: LOG_LEVEL/)
  })
})

/**
 * The variables a worker's layers read (leases, live ingestion) are checked with the others, before
 * anything starts: a malformed one never migrates a database or starts a runner beside it.
 */
describe.concurrent("a worker's own variables", () => {
  const cases: Array<[string, Record<string, string>]> = [
    ["JOB_LEASE_SECONDS", { JOB_LEASE_SECONDS: "0" }],
    ["REPORT_JOB_LEASE_SECONDS", { REPORT_JOB_LEASE_SECONDS: "abc" }],
    ["WEBHOOK_DELIVERY_LEASE_SECONDS", { WEBHOOK_DELIVERY_LEASE_SECONDS: "-5" }],
    ["INGEST_SOURCES", { INGEST_SOURCES: "ted,ebay" }],
    ["TED_API_URL", { TED_API_URL: "api.ted.europa.eu" }],
    ["INGEST_PAGE_SIZE", { INGEST_PAGE_SIZE: "500" }]
  ]
  // Nothing answers here: a variable checked only by its layer fails on the database instead.
  const unreachable = { DATABASE_URL: "postgres://postgres@127.0.0.1:1/nowhere", REDIS_URL: "" }

  it.each(cases)("the worker process names %s before it connects to the database", async (variable, env) => {
    const line = expectOneLineFailure(await runEntryPoint("worker", { ...unreachable, ...env }))
    expect(line).toMatch(/^Invalid configuration: /)
    expect(line).toContain(variable)
  })

  it("npm start names INGEST_POLL_SECONDS before it connects to the database", async () => {
    const line = expectOneLineFailure(await runEntryPoint("all-in-one", { ...unreachable, INGEST_POLL_SECONDS: "0" }))
    expect(line).toMatch(/^Invalid configuration: INGEST_POLL_SECONDS/)
  })

  it("a worker with an invalid variable refuses to start before it migrates the database or starts a runner", async () => {
    // An empty database, as on a first deployment.
    const name = `${inject("runDatabasePrefix")}config_${randomBytes(4).toString("hex")}`
    const admin = new pg.Client({ connectionString: inject("adminDatabaseUrl") })
    await admin.connect()
    await admin.query(`CREATE DATABASE "${name}"`)
    try {
      const url = databaseNamed(inject("adminDatabaseUrl"), name)
      const result = await runEntryPoint("worker", {
        DATABASE_URL: url,
        REDIS_URL: "",
        DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "tss-config-")),
        JOB_LEASE_SECONDS: "abc"
      })
      expect(result.code).toBe(1)
      expect(result.stderr.trim()).toBe(
        'Invalid configuration: JOB_LEASE_SECONDS: Expected an integer value but received "abc"'
      )
      const db = new pg.Client({ connectionString: url })
      await db.connect()
      const migrated = (await db.query("SELECT to_regclass('public.schema_migrations') IS NOT NULL AS migrated"))
        .rows[0]
      await db.end()
      // README, "Configuration": a malformed value stops the process with one line, before anything
      // starts (src/bin/Main.ts, `launch`): no migration applied, no runner announced.
      expect({ migrated: migrated.migrated, stdout: result.stdout.trim().split("\n").slice(0, 3) }).toEqual({
        migrated: false,
        stdout: [""]
      })
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      await admin.end()
    }
  }, 180_000)
})

describe("a DATA_DIR the process cannot use", () => {
  // A reachable, migrated database: the key files are then the only thing that can fail.
  const runtime = ManagedRuntime.make(TestDatabaseLive)
  let databaseUrl: string
  beforeAll(async () => {
    databaseUrl = await runtime.runPromise(TestDatabaseUrl)
  })
  afterAll(() => runtime.dispose())

  it("is one line naming DATA_DIR, the key file and the reason when the key files cannot be created", async () => {
    // A file where DATA_DIR's parent folder should be: mkdir fails (ENOTDIR), as for a read-only or foreign folder.
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tss-config-")), "a-file")
    fs.writeFileSync(file, "")
    const dataDir = path.join(file, "data")
    const line = expectOneLineFailure(
      await runEntryPoint("api", {
        DATABASE_URL: databaseUrl,
        REDIS_URL: "",
        PORT: String(await freePort()),
        DATA_DIR: dataDir,
        MASTER_KEY: undefined,
        CURSOR_SECRET: undefined
      })
    )
    expect(line).toMatch(/^DATA_DIR: cannot read or create the key file (master\.key|cursor\.secret) in /)
    expect(line).toContain(` in ${dataDir}: ENOTDIR`)
  })
})

describe("an empty or blank variable counts as unset", () => {
  it("HOST, PORT, LOG_LEVEL, MAX_BODY_BYTES, SESSION_MAX_DAYS and the sources' spacing take their defaults", async () => {
    const blank = {
      HOST: "",
      PORT: " ",
      LOG_LEVEL: "",
      MAX_BODY_BYTES: "",
      SESSION_MAX_DAYS: " ",
      TED_REQUEST_SPACING_MS: "",
      SEAP_REQUEST_SPACING_MS: "\t",
      INGEST_POLL_SECONDS: ""
    }
    const [app, ingest] = await Effect.runPromise(
      Effect.all([loadAppConfig, ingestConfig]).pipe(Effect.withConfigProvider(environmentConfig(blank)))
    )
    // Not "" (node would listen on every interface) and not 0.
    expect(app.host).toBe("127.0.0.1")
    expect(app.port).toBe(3000)
    expect(app.maxBodyBytes).toBe(1024 * 1024)
    expect(app.sessionMaxDays).toBe(30)
    expect(Duration.toMillis(ingest.spacing.ted)).toBe(250)
    expect(Duration.toMillis(ingest.spacing.seap)).toBe(2000)
    expect(Duration.toSeconds(ingest.pollEvery)).toBe(300)
    // A value that is there is read as before.
    const set = await Effect.runPromise(
      loadAppConfig.pipe(Effect.withConfigProvider(environmentConfig({ HOST: "0.0.0.0" })))
    )
    expect(set.host).toBe("0.0.0.0")
  })

  it("the API process reads PORT= as unset: it goes on to the database instead of refusing PORT", async () => {
    const started = await runEntryPoint("api", {
      PORT: "",
      HOST: "",
      DATABASE_URL: "postgres://postgres@127.0.0.1:1/nowhere"
    })
    const line = expectOneLineFailure(started)
    expect(line).not.toContain("PORT")
    expect(line).toMatch(/connect/i)
  })
})
