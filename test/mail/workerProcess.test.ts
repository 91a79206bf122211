import { spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { EmailOutbox } from "../../src/infra/mail/EmailOutbox.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { entryPointArgs, PROJECT_ROOT } from "../foundation/processes.js"
import { makeSelfSignedCertificate } from "../support/HttpsReceiver.js"
import { startSmtpReceiver } from "../support/SmtpReceiver.js"
import { TestDatabaseLive, TestDatabaseUrl } from "../support/TestDatabase.js"

const TestLayer = RepositoriesLive.pipe(Layer.provideMerge(TestDatabaseLive))

/** `src/bin/worker.ts` as its own process, stopped with SIGTERM (and its temp directory removed) at scope end. */
const workerProcess = (env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = spawn(process.execPath, entryPointArgs("worker"), {
        cwd: PROJECT_ROOT,
        env: { ...process.env, REDIS_URL: "", LOG_LEVEL: "warn", ...env },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      child.stdout.on("data", (chunk) => {
        output += chunk
      })
      child.stderr.on("data", (chunk) => {
        output += chunk
      })
      const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()))
      return { child, exited, output: () => output }
    }),
    ({ child, exited }) =>
      Effect.promise(() => {
        if (child.exitCode === null) child.kill("SIGTERM")
        return exited
      })
  )

describe("the worker process sends the outbox", () => {
  layer(TestLayer, { excludeTestServices: true, timeout: 120_000 })((it) => {
    it.scoped(
      "over smtps:// to a server whose certificate is trusted through NODE_EXTRA_CA_CERTS",
      () =>
        Effect.gen(function* () {
          const dir = yield* Effect.acquireRelease(
            Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "tss-mail-"))),
            (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
          )
          const certificate = makeSelfSignedCertificate()
          yield* Effect.promise(() => fs.writeFile(path.join(dir, "ca.pem"), certificate.cert))
          const receiver = yield* Effect.acquireRelease(
            Effect.promise(() => startSmtpReceiver({ tls: certificate, auth: { user: "u", pass: "secret-pass" } })),
            (r) => Effect.promise(() => r.close())
          )
          expect(receiver.url).toMatch(/^smtps:\/\//)
          const worker = yield* workerProcess({
            DATABASE_URL: yield* TestDatabaseUrl,
            DATA_DIR: dir,
            SMTP_URL: receiver.url,
            MAIL_FROM: "Alerte <alerte@scoring.example>",
            NODE_EXTRA_CA_CERTS: path.join(dir, "ca.pem")
          })

          const sql = yield* SqlClient.SqlClient
          const [tenant] = yield* sql<{
            id: string
          }>`INSERT INTO tenants (name, plan) VALUES ('T', 'consultant') RETURNING id`
          yield* sql`INSERT INTO users (tenant_id, email, password_hash) VALUES (${tenant!.id}, 'ops@client.example', 'x')`
          yield* sql.withTransaction(
            Effect.flatMap(EmailOutbox, (outbox) =>
              outbox.enqueueForTenant(tenant!.id, { subject: "Delivery failed", bodyText: "Details inside." })
            )
          )

          const [message] = yield* Effect.tryPromise(() => receiver.waitFor(1, 90_000)).pipe(
            Effect.mapError(() => new Error(`no message arrived; worker output:\n${worker.output()}`))
          )
          expect(message!.envelopeTo).toEqual(["ops@client.example"])
          expect(message!.headers.subject).toBe("Delivery failed")
          expect(message!.headers.from).toBe("Alerte <alerte@scoring.example>")
          expect(message!.text).toBe("Details inside.")
          expect(message!.user).toBe("u")
          // The SMTP password is never written to the log.
          expect(worker.output()).not.toContain("secret-pass")
        }),
      120_000
    )

    it.scoped(
      "runs the daily digest: a user at hour 0 is due at the worker's start pass and gets one Romanian e-mail",
      () =>
        Effect.gen(function* () {
          const dir = yield* Effect.acquireRelease(
            Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "tss-digest-"))),
            (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
          )
          const receiver = yield* Effect.acquireRelease(
            Effect.promise(() => startSmtpReceiver()),
            (r) => Effect.promise(() => r.close())
          )
          const sql = yield* SqlClient.SqlClient
          const [tenant] = yield* sql<{ id: string }>`
            INSERT INTO tenants (name, plan) VALUES ('Cabinet', 'consultant') RETURNING id`
          yield* sql`
            INSERT INTO users (tenant_id, email, password_hash, digest_enabled, digest_hour)
            VALUES (${tenant!.id}, 'consultant@cabinet.example', 'x', true, 0)`
          const [company] = yield* sql<{ id: string }>`
            INSERT INTO companies (tenant_id, name) VALUES (${tenant!.id}, 'Drumuri Vest SRL') RETURNING id`
          const [authority] = yield* sql<{ id: string }>`
            INSERT INTO contracting_authorities (name, normalized_name)
            VALUES ('Consiliul Județean Alba', 'consiliul judetean alba') RETURNING id`
          const [tender] = yield* sql<{ id: string; ingest_seq: string }>`
            INSERT INTO tenders (source, source_notice_id, title, main_cpv, authority_id, deadline, publish_date,
                                 created_at)
            VALUES ('test', 'digest-1', 'Modernizare DJ 107', '45233140-2', ${authority!.id},
                    now() + interval '30 days', now(), now() - interval '1 hour')
            RETURNING id, ingest_seq::text`
          yield* sql`
            INSERT INTO tender_scores (company_id, tender_id, overall_score, overall_confidence, verdict, score_semantic,
                                       score_keyword, score_cpv, score_value_fit, score_historical, cpv_type,
                                       model_version, scored_at, tender_publish_date, tender_ingest_seq)
            VALUES (${company!.id}, ${tender!.id}, 88, 0.8, 'GO', 0.5, 0.5, 0.5, 0.5, 0.5, 'primary', 'test', now(),
                    now(), ${tender!.ingest_seq})`

          const worker = yield* workerProcess({
            DATABASE_URL: yield* TestDatabaseUrl,
            DATA_DIR: dir,
            SMTP_URL: receiver.url
          })
          const [message] = yield* Effect.tryPromise(() => receiver.waitFor(1, 90_000)).pipe(
            Effect.mapError(() => new Error(`no digest arrived; worker output:\n${worker.output()}`))
          )
          expect(message!.envelopeTo).toEqual(["consultant@cabinet.example"])
          expect(message!.text).toContain("== Drumuri Vest SRL ==")
          expect(message!.text).toContain("Licitații noi care merită (1):\n  • Modernizare DJ 107")
          expect(message!.html).toContain("<strong>Modernizare DJ 107</strong>")
          const sends = yield* sql<{
            n: number
          }>`SELECT count(*)::int AS n FROM digest_sends WHERE email_id IS NOT NULL`
          expect(sends[0]!.n).toBe(1)
        }),
      120_000
    )
  })
})
