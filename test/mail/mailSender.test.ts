import { randomBytes } from "node:crypto"
import * as net from "node:net"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import {
  Clock,
  ConfigProvider,
  Duration,
  Effect,
  HashMap,
  Layer,
  Logger,
  Option,
  Redacted,
  Schedule,
  TestClock
} from "effect"
import { delayAfterFailure, MailRetrySchedule } from "../../src/domain/Retries.js"
import { renderFailureEmail } from "../../src/domain/webhooks/FailureEmail.js"
import { appConfig } from "../../src/infra/config/AppConfig.js"
import { EmailOutbox, SendEmail } from "../../src/infra/mail/EmailOutbox.js"
import { LoggingMailer, SmtpMailer } from "../../src/infra/mail/Mailer.js"
import { JobQueue } from "../../src/infra/queue/JobQueue.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { MailSenderLive, sendDueMail } from "../../src/workers/MailSender.js"
import { failUpdates } from "../support/FailingUpdates.js"
import { makeSelfSignedCertificate } from "../support/HttpsReceiver.js"
import { startSmtpReceiver } from "../support/SmtpReceiver.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

const TestLayer = RepositoriesLive.pipe(Layer.provideMerge(TestDatabaseLive))
const FROM = "Tender Scoring <no-reply@scoring.example>"

/** A tenant with these users (e-mails made unique per call); returns its id and the addresses. */
const tenantWithUsers = (...names: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tag = randomBytes(4).toString("hex")
    const [tenant] = yield* sql<{
      id: string
    }>`INSERT INTO tenants (name, plan) VALUES ('T', 'consultant') RETURNING id`
    const emails = names.map((name) => `${name}.${tag}@client.example`)
    for (const email of emails) {
      yield* sql`INSERT INTO users (tenant_id, email, password_hash) VALUES (${tenant!.id}, ${email}, 'x')`
    }
    return { tenantId: tenant!.id, emails }
  }).pipe(Effect.orDie)

interface OutboxRow {
  readonly to_address: string
  readonly status: string
  readonly attempts: number
  readonly last_error: string | null
  readonly sent_at: Date | null
  readonly next_attempt_at: Date
}

const outboxOf = (tenantId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<OutboxRow>`
      SELECT e.to_address, e.status, j.attempts, j.last_error, e.sent_at, j.run_at AS next_attempt_at
      FROM email_outbox e JOIN jobs j ON j.kind = ${SendEmail.name} AND j.payload ->> 'emailId' = e.id::text
      WHERE e.tenant_id = ${tenantId} ORDER BY e.to_address`
  ).pipe(Effect.orDie)

const enqueue = (tenantId: string, subject: string, bodyText: string) =>
  Effect.flatMap(EmailOutbox, (outbox) => outbox.enqueueForTenant(tenantId, { subject, bodyText }))

const smtp = (url: string) => SmtpMailer({ url: Redacted.make(url), from: FROM })

describe("MAIL_FROM", () => {
  const load = (env: Record<string, string>) =>
    appConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

  it.effect("defaults to no-reply at the host of PUBLIC_BASE_URL (an IP becomes an address literal)", () =>
    Effect.gen(function* () {
      expect((yield* load({ PUBLIC_BASE_URL: "https://scoring.example.ro/app" })).mailFrom).toBe(
        "Tender Scoring <no-reply@scoring.example.ro>"
      )
      expect((yield* load({ PUBLIC_BASE_URL: "http://127.0.0.1:3000" })).mailFrom).toBe(
        "Tender Scoring <no-reply@[127.0.0.1]>"
      )
      expect((yield* load({})).mailFrom).toBe("Tender Scoring <no-reply@localhost>")
    })
  )

  it.effect("takes one address, bare or with a display name; anything else is a configuration error", () =>
    Effect.gen(function* () {
      expect((yield* load({ MAIL_FROM: "Alerte <alerte@firma.ro>" })).mailFrom).toBe("Alerte <alerte@firma.ro>")
      expect((yield* load({ MAIL_FROM: "alerte@firma.ro" })).mailFrom).toBe("alerte@firma.ro")
      expect((yield* load({ MAIL_FROM: '"Firma, SRL" <alerte@firma.ro>' })).mailFrom).toBe(
        '"Firma, SRL" <alerte@firma.ro>'
      )
      const bad = [
        "alerte",
        "a@b.ro, c@d.ro",
        "Firma, SRL <a@firma.ro>",
        "Alerte <alerte@firma.ro",
        "x@y.ro\r\nBcc: z@w.ro"
      ]
      for (const value of bad) {
        const error = yield* Effect.flip(load({ MAIL_FROM: value }))
        expect(String(error)).toContain("MAIL_FROM")
      }
    })
  )
})

describe("e-mail outbox sender", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.scoped(
      "a running sender wakes on commit and a real SMTP server receives one message per user (the webhook failure e-mail, in Romanian)",
      () =>
        Effect.gen(function* () {
          const receiver = yield* Effect.acquireRelease(
            Effect.promise(() => startSmtpReceiver({ auth: { user: "mailer", pass: "p@ss:word" } })),
            (r) => Effect.promise(() => r.close())
          )
          // Polling every 10 minutes: only the NOTIFY of the commit can wake it within the test.
          yield* Layer.launch(MailSenderLive({ pollEvery: "10 minutes" }).pipe(Layer.provide(smtp(receiver.url)))).pipe(
            Effect.forkScoped
          )
          yield* Effect.sleep("300 millis")
          const { tenantId, emails } = yield* tenantWithUsers("ana", "bogdan")
          const sql = yield* SqlClient.SqlClient
          const { subject, bodyText: body } = renderFailureEmail({
            id: "6f1c2b9e-0d4a-4c8e-9b1f-3a2d5e7c8b90",
            webhookId: "0b7e9c3a-5f21-4d6b-8a4e-2c9f1d3b7a65",
            url: "https://hooks.example/x?client=42&n=1",
            attempts: 4,
            failedAt: new Date("2026-11-20T12:05:00Z"),
            lastFailure: { _tag: "response", status: 503 }
          })
          expect(yield* sql.withTransaction(enqueue(tenantId, subject, body))).toBe(2)

          const received = yield* Effect.promise(() => receiver.waitFor(2))
          expect(received.flatMap((m) => m.envelopeTo).sort()).toEqual([...emails].sort())
          for (const message of received) {
            expect(message.envelopeTo).toHaveLength(1)
            expect(message.headers.to).toBe(message.envelopeTo[0])
            expect(message.headers.subject).toContain("=?UTF-8?") // encoded: Romanian letters
            expect(message.subject).toBe("Livrare eșuată către webhook-ul https://hooks.example/x?client=42&n=1")
            expect(message.headers.from).toBe(FROM)
            expect(message.envelopeFrom).toBe("no-reply@scoring.example")
            expect(message.user).toBe("mailer")
            expect(message.text).toBe(body)
            expect(message.text).toContain("Ultima eroare: răspuns HTTP 503")
            expect(message.text).toContain("Id livrare:    6f1c2b9e-0d4a-4c8e-9b1f-3a2d5e7c8b90")
          }
          const rows = yield* outboxOf(tenantId).pipe(
            Effect.filterOrFail((rows) => rows.every((r) => r.status === "sent")),
            Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo("5 seconds")))
          )
          expect(rows.map((r) => [r.status, r.attempts, r.last_error])).toEqual([
            ["sent", 1, null],
            ["sent", 1, null]
          ])
          expect(rows.every((r) => r.sent_at !== null)).toBe(true)
        })
    )

    it.effect("a rolled-back transaction leaves no message", () =>
      Effect.gen(function* () {
        const { tenantId } = yield* tenantWithUsers("rollback")
        const sql = yield* SqlClient.SqlClient
        yield* sql.withTransaction(Effect.zipRight(enqueue(tenantId, "s", "b"), Effect.fail("abort"))).pipe(Effect.flip)
        expect(yield* outboxOf(tenantId)).toEqual([])
      })
    )

    it.effect("without SMTP_URL a message becomes `logged` and is written to the log", () =>
      Effect.gen(function* () {
        const { tenantId, emails } = yield* tenantWithUsers("local")
        yield* enqueue(tenantId, "Only logged", "Body kept in the outbox")
        const lines: Array<{ message: string; annotations: Record<string, unknown> }> = []
        const capture = Logger.make(({ message, annotations }) => {
          lines.push({ message: String(message), annotations: Object.fromEntries(HashMap.toEntries(annotations)) })
        })
        yield* sendDueMail().pipe(
          Effect.provide(LoggingMailer),
          Effect.provide(Logger.replace(Logger.defaultLogger, capture))
        )
        const [row] = yield* outboxOf(tenantId)
        expect([row!.status, row!.attempts]).toEqual(["logged", 1])
        expect(row!.sent_at).not.toBeNull()
        expect(lines).toContainEqual({
          message: expect.stringContaining("no SMTP_URL"),
          // Also annotated with the job it ran in (job_id, kind: issue 22's job trail).
          annotations: expect.objectContaining({
            to: emails[0],
            subject: "Only logged",
            body: "Body kept in the outbox"
          })
        })
      })
    )

    it.effect("smtps:// checks the server's certificate: a self-signed one is refused, nothing is sent", () =>
      Effect.gen(function* () {
        const receiver = yield* Effect.acquireRelease(
          Effect.promise(() => startSmtpReceiver({ tls: makeSelfSignedCertificate() })),
          (r) => Effect.promise(() => r.close())
        )
        const { tenantId } = yield* tenantWithUsers("tls")
        yield* enqueue(tenantId, "s", "b")
        yield* sendDueMail().pipe(Effect.provide(smtp(receiver.url)))
        const [row] = yield* outboxOf(tenantId)
        expect([row!.status, row!.attempts]).toEqual(["pending", 1])
        expect(row!.last_error).toMatch(/certificate/i)
        expect(receiver.received).toHaveLength(0)
      }).pipe(Effect.scoped)
    )

    // The socket timeout (30 s) restarts with every byte: without a deadline, a server that answers
    // EHLO one line at a time held the send, its lease renewed and its slot taken, for good.
    it.scoped(
      "a server that trickles its answer: the send is given up at its deadline, its connection closed, and retried",
      () =>
        Effect.gen(function* () {
          let connectionClosed = () => {}
          const closed = new Promise<void>((resolve) => {
            connectionClosed = resolve
          })
          const sockets = new Set<net.Socket>()
          const server = net.createServer((socket) => {
            sockets.add(socket)
            socket.on("error", () => {})
            socket.on("close", () => connectionClosed())
            socket.write("220 slow.example ESMTP\r\n")
            socket.once("data", () => {
              socket.write("250-slow.example\r\n")
              const timer = setInterval(() => socket.write("250-STILL-THINKING\r\n"), 200)
              socket.on("close", () => clearInterval(timer))
            })
          })
          yield* Effect.acquireRelease(
            Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))),
            () =>
              Effect.promise(() => {
                for (const socket of sockets) socket.destroy()
                return new Promise<void>((resolve) => server.close(() => resolve()))
              })
          )
          const { port } = server.address() as net.AddressInfo
          const { tenantId } = yield* tenantWithUsers("slow")
          yield* enqueue(tenantId, "s", "b")
          const started = Date.now()
          const mailer = SmtpMailer({
            url: Redacted.make(`smtp://127.0.0.1:${port}`),
            from: FROM,
            deadline: "2 seconds"
          })
          const outcome = yield* sendDueMail().pipe(
            Effect.provide(mailer),
            Effect.timeoutTo({ duration: "15 seconds", onTimeout: () => "still sending", onSuccess: String })
          )
          expect(outcome).toBe("1")
          expect(Date.now() - started).toBeGreaterThanOrEqual(1_900)
          expect(Date.now() - started).toBeLessThan(10_000)
          const [row] = yield* outboxOf(tenantId)
          expect([row!.status, row!.attempts]).toEqual(["pending", 1])
          expect(row!.last_error).toBe("The SMTP server did not take the message within 2s")
          yield* Effect.promise(() => closed).pipe(Effect.timeout("2 seconds"))
        })
    )
  })

  // Retry times come from Effect's Clock: the TestClock (shared by this block) moves them.
  layer(TestLayer)("retries on the TestClock", (it) => {
    const delayMillis = (failures: number) =>
      Effect.map(delayAfterFailure(MailRetrySchedule, failures), (d) => Duration.toMillis(Option.getOrThrow(d)))

    it.scoped(
      "a refusing server: retried after 1, 3, 9 and 27 minutes, then hourly, then `failed` after 12 attempts with the last error",
      () =>
        Effect.gen(function* () {
          const receiver = yield* Effect.acquireRelease(
            Effect.promise(() =>
              startSmtpReceiver({ answer: (n) => ({ code: 451, message: `Try again later (${n + 1})` }) })
            ),
            (r) => Effect.promise(() => r.close())
          )
          const send = sendDueMail().pipe(Effect.provide(smtp(receiver.url)))
          const { tenantId } = yield* tenantWithUsers("refused")
          yield* enqueue(tenantId, "s", "b")
          for (let attempt = 1; attempt <= 11; attempt++) {
            expect(yield* send).toBe(1)
            const failedAt = yield* Clock.currentTimeMillis
            const [row] = yield* outboxOf(tenantId)
            const delay = yield* delayMillis(attempt)
            expect([row!.status, row!.attempts]).toEqual(["pending", attempt])
            expect(row!.last_error).toContain(`451 Try again later (${attempt})`)
            expect(row!.next_attempt_at.getTime()).toBe(failedAt + delay)
            yield* TestClock.adjust(delay - 1)
            expect(yield* send).toBe(0)
            yield* TestClock.adjust(1)
          }
          expect(yield* send).toBe(1)
          const [row] = yield* outboxOf(tenantId)
          expect([row!.status, row!.attempts]).toEqual(["failed", 12])
          expect(row!.last_error).toContain("451 Try again later (12)")
          expect(receiver.attempts()).toBe(12)
          yield* TestClock.adjust("1 day")
          expect(yield* send).toBe(0)
        })
    )

    // RFC 5321 4.2.1: a 5yz reply is permanent; sending the message again cannot change it.
    it.scoped(
      "a permanent refusal (550 No such user): `failed` after its one attempt, never sent again; the job's error names no address",
      () =>
        Effect.gen(function* () {
          let recipient = ""
          // As servers word it: the refused address quoted, here in another case than it was sent.
          const receiver = yield* Effect.acquireRelease(
            Effect.promise(() =>
              startSmtpReceiver({
                answer: () => ({ code: 550, message: `5.1.1 <${recipient.toUpperCase()}>: No such user here` })
              })
            ),
            (r) => Effect.promise(() => r.close())
          )
          const send = sendDueMail().pipe(Effect.provide(smtp(receiver.url)))
          const { tenantId, emails } = yield* tenantWithUsers("unknown")
          recipient = emails[0]!
          yield* enqueue(tenantId, "s", "b")
          expect(yield* send).toBe(1)
          const [row] = yield* outboxOf(tenantId)
          expect([row!.status, row!.attempts]).toEqual(["failed", 1])
          expect(row!.last_error).toContain("550 5.1.1 <<recipient>>: No such user here")
          expect(row!.last_error!.toLowerCase()).not.toContain(recipient.split("@")[0])
          yield* TestClock.adjust("1 hour")
          expect(yield* send).toBe(0)
          expect(receiver.attempts()).toBe(1)
        })
    )

    it.scoped("a recipient stored before the one-address rule (a comma inside) is `failed` unsent", () =>
      Effect.gen(function* () {
        const receiver = yield* Effect.acquireRelease(
          Effect.promise(() => startSmtpReceiver({})),
          (r) => Effect.promise(() => r.close())
        )
        const { tenantId } = yield* tenantWithUsers("victim,evil")
        yield* enqueue(tenantId, "s", "b")
        expect(yield* sendDueMail().pipe(Effect.provide(smtp(receiver.url)))).toBe(1)
        const [row] = yield* outboxOf(tenantId)
        expect([row!.status, row!.attempts]).toEqual(["failed", 1])
        expect(row!.last_error).toContain("not one e-mail address")
        expect(receiver.attempts()).toBe(0)
      })
    )

    it.scoped("a refused login (535) is the server settings' fault, not the message's: retried", () =>
      Effect.gen(function* () {
        const receiver = yield* Effect.acquireRelease(
          Effect.promise(() => startSmtpReceiver({ auth: { user: "mailer", pass: "right" } })),
          (r) => Effect.promise(() => r.close())
        )
        const { tenantId } = yield* tenantWithUsers("login")
        yield* enqueue(tenantId, "s", "b")
        expect(yield* sendDueMail().pipe(Effect.provide(smtp(`smtp://mailer:wrong@127.0.0.1:${receiver.port}`)))).toBe(
          1
        )
        const [row] = yield* outboxOf(tenantId)
        expect([row!.status, row!.attempts]).toEqual(["pending", 1])
        expect(row!.last_error).toContain("535")
        // The password set right, the retry sends it.
        yield* TestClock.adjust(yield* delayMillis(1))
        expect(yield* sendDueMail().pipe(Effect.provide(smtp(receiver.url)))).toBe(1)
        const [sent] = yield* outboxOf(tenantId)
        expect([sent!.status, sent!.attempts]).toEqual(["sent", 2])
      })
    )

    // Sending is at least once: a connection cut after the server took the message sends it again.
    it.scoped("a message sent again keeps its Message-ID, made from its outbox row; each message has its own", () =>
      Effect.gen(function* () {
        const receiver = yield* Effect.acquireRelease(
          Effect.promise(() => startSmtpReceiver({ answer: (n) => (n === 0 ? "drop" : "accept") })),
          (r) => Effect.promise(() => r.close())
        )
        const send = sendDueMail().pipe(Effect.provide(smtp(receiver.url)))
        const { tenantId } = yield* tenantWithUsers("ana", "bogdan")
        yield* enqueue(tenantId, "s", "b")
        expect(yield* send).toBe(2)
        expect((yield* outboxOf(tenantId)).map((r) => r.status).sort()).toEqual(["pending", "sent"])
        yield* TestClock.adjust(yield* delayMillis(1))
        expect(yield* send).toBe(1)
        expect((yield* outboxOf(tenantId)).map((r) => r.status)).toEqual(["sent", "sent"])

        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ id: string; to_address: string }>`
          SELECT id::text, to_address FROM email_outbox WHERE tenant_id = ${tenantId}`
        const idOf = new Map(rows.map((row) => [row.to_address, row.id]))
        const received = receiver.received
        expect(received).toHaveLength(3)
        for (const message of received) {
          expect(message.headers["message-id"]).toBe(`<${idOf.get(message.envelopeTo[0]!)}@scoring.example>`)
        }
        expect(new Set(received.map((m) => m.headers["message-id"])).size).toBe(2)
      })
    )

    it.scoped("a server that is down, then back: sent at the retry after the schedule's delay", () =>
      Effect.gen(function* () {
        const down = yield* Effect.promise(() => startSmtpReceiver())
        yield* Effect.promise(() => down.close())
        const { tenantId } = yield* tenantWithUsers("down")
        yield* enqueue(tenantId, "Back again", "b")
        expect(yield* sendDueMail().pipe(Effect.provide(smtp(down.url)))).toBe(1)
        const [failed] = yield* outboxOf(tenantId)
        expect([failed!.status, failed!.attempts]).toEqual(["pending", 1])
        expect(failed!.last_error).toMatch(/ECONNREFUSED/)

        const up = yield* Effect.acquireRelease(
          Effect.promise(() => startSmtpReceiver()),
          (r) => Effect.promise(() => r.close())
        )
        const send = sendDueMail().pipe(Effect.provide(smtp(up.url)))
        yield* TestClock.adjust((yield* delayMillis(1)) - 1)
        expect(yield* send).toBe(0)
        yield* TestClock.adjust(1)
        expect(yield* send).toBe(1)
        const [row] = yield* outboxOf(tenantId)
        expect([row!.status, row!.attempts]).toEqual(["sent", 2])
        expect(up.received.map((m) => m.headers.subject)).toEqual(["Back again"])
      })
    )

    it.effect("a sender that dies mid-send: the message is taken again when its lease runs out (at-least-once)", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const outbox = yield* EmailOutbox
        const { tenantId } = yield* tenantWithUsers("crash")
        yield* enqueue(tenantId, "s", "b")
        const claim = (workerId: string) =>
          queue
            .claim({ kinds: [SendEmail.name], workerId, limit: 10, lease: "2 minutes" })
            .pipe(Effect.map(({ jobs }) => jobs))
        const [claimed] = yield* claim("dead")
        expect(claimed?.attempts).toBe(1)
        yield* TestClock.adjust("2 minutes")
        expect(yield* queue.reap).toBe(0)
        expect(yield* claim("alive")).toEqual([])
        yield* TestClock.adjust(1)
        expect(yield* queue.reap).toBe(1)
        const [again] = yield* claim("alive")
        expect(again?.id).toBe(claimed!.id)
        expect(again?.attempts).toBe(2)
        // The dead sender's late failure report does not override the new holder's claim.
        expect(yield* queue.settle(claimed!, { _tag: "retry", at: new Date(0), error: "late" })).toBe(false)
        const emailId = (again!.payload as { emailId: string }).emailId
        yield* outbox.recordSent(again!, emailId, "sent")
        const [row] = yield* outboxOf(tenantId)
        expect(row!.status).toBe("sent")
        expect(row!.last_error).toBe("lease expired: the worker stopped during the attempt")
      })
    )
  })
})

/** Makes the `sent` record of a message fail its first `failures` times. */
const failSentRecords = (failures: number) =>
  failUpdates({
    name: "fail_sent_record",
    table: "email_outbox",
    when: "NEW.status = 'sent'",
    failures,
    message: "connection reset while recording the send"
  })

describe("a message the SMTP server accepted but whose record failed (a connection cut, a statement timeout)", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.scoped("the record is tried again: `sent`, its job done, never sent a second time", () =>
      Effect.gen(function* () {
        const receiver = yield* Effect.acquireRelease(
          Effect.promise(() => startSmtpReceiver()),
          (r) => Effect.promise(() => r.close())
        )
        yield* failSentRecords(2)
        const { tenantId } = yield* tenantWithUsers("once")
        yield* enqueue(tenantId, "Only once", "b")
        const send = sendDueMail().pipe(Effect.provide(smtp(receiver.url)))
        expect(yield* send).toBe(1)
        const [row] = yield* outboxOf(tenantId)
        expect([row!.status, row!.attempts, row!.last_error]).toEqual(["sent", 1, null])
        const sql = yield* SqlClient.SqlClient
        const [job] = yield* sql<{ status: string }>`
          SELECT status FROM jobs WHERE kind = ${SendEmail.name} AND payload ->> 'emailId' IN
            (SELECT id::text FROM email_outbox WHERE tenant_id = ${tenantId})`
        expect(job!.status).toBe("done")
        // Nothing left to send, now or at a retry's time.
        expect(yield* send).toBe(0)
        expect(receiver.received.map((m) => m.headers.subject)).toEqual(["Only once"])
      })
    )
  })
})
