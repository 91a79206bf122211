import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import {
  Chunk,
  Context,
  Deferred,
  Duration,
  Effect,
  Either,
  Fiber,
  Layer,
  Option,
  Queue,
  Redacted,
  TestClock
} from "effect"
import {
  DIGEST_AUTHORITY_MAX,
  DIGEST_TITLE_MAX,
  type DigestTender,
  renderDigest
} from "../../src/domain/digest/DigestEmail.js"
import { digestSlot, untilNextHour } from "../../src/domain/digest/DigestSchedule.js"
import { romanianCount } from "../../src/domain/RomanianFormat.js"
import { AppConfig } from "../../src/infra/config/AppConfig.js"
import { PgLive } from "../../src/infra/db/PgPool.js"
import { DailyDigest, DailyDigestLive, type DigestPass } from "../../src/infra/digest/DailyDigest.js"
import { DigestSettingsRepo } from "../../src/infra/digest/DigestSettingsRepo.js"
import { SmtpMailer } from "../../src/infra/mail/Mailer.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { runDigestSchedule } from "../../src/workers/DigestScheduler.js"
import { sendDueMail } from "../../src/workers/MailSender.js"
import { startSmtpReceiver } from "../support/SmtpReceiver.js"
import { TestDatabaseLive, TestDatabaseUrl } from "../support/TestDatabase.js"
import { testConfig } from "../support/TestServer.js"

const APP_URL = "https://licitatii.example.ro"
const AppConfigTest = Layer.succeed(AppConfig, testConfig({ publicBaseUrl: APP_URL }))
/** The digest as a worker runs it, with the repositories and a database of its own. */
const DigestWorker = DailyDigestLive.pipe(Layer.provideMerge(RepositoriesLive), Layer.provideMerge(AppConfigTest))
const TestLayer = DigestWorker.pipe(Layer.provideMerge(TestDatabaseLive))

const unique = () => randomBytes(4).toString("hex")
const at = (iso: string) => new Date(iso)
const HOUR = Duration.hours(1)

/** Only this test's users are due and only its messages sent: earlier tests' are switched off. */
const onlyNewUsers = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.zipRight(sql`UPDATE users SET digest_enabled = false`, sql`DELETE FROM jobs WHERE kind = 'mail.send'`)
).pipe(Effect.orDie)

/** A tenant with one user (digest on at `hour`) and companies; returns their ids. */
const account = (options: {
  readonly hour: number
  readonly companies?: ReadonlyArray<string>
  readonly inactive?: string
}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [tenant] = yield* sql<{
      id: string
    }>`INSERT INTO tenants (name, plan) VALUES ('Cabinet', 'consultant') RETURNING id`
    const email = `consultant.${unique()}@cabinet.example`
    const [user] = yield* sql<{ id: string }>`
      INSERT INTO users (tenant_id, email, password_hash, digest_enabled, digest_hour)
      VALUES (${tenant!.id}, ${email}, 'x', true, ${options.hour}) RETURNING id`
    const companies: Array<string> = []
    for (const name of options.companies ?? ["Drumuri Vest SRL"]) {
      const [row] = yield* sql<{ id: string }>`
        INSERT INTO companies (tenant_id, name) VALUES (${tenant!.id}, ${name}) RETURNING id`
      companies.push(row!.id)
    }
    let inactive: string | undefined
    if (options.inactive !== undefined) {
      const [row] = yield* sql<{ id: string }>`
        INSERT INTO companies (tenant_id, name, active) VALUES (${tenant!.id}, ${options.inactive}, false) RETURNING id`
      inactive = row!.id
    }
    return { tenantId: tenant!.id, userId: user!.id, email, companies, inactive }
  }).pipe(Effect.orDie)

interface TenderInput {
  readonly companyId: string
  readonly title: string
  readonly createdAt: Date
  readonly verdict?: "GO" | "RESEARCH" | "SKIP"
  readonly score?: number
  readonly deadline?: Date | null
  readonly valueRon?: number | null
  readonly authority?: string
  readonly cancelled?: boolean
  /** When its scoring first wrote it (null: scored before migration 0034; the digest reads createdAt). */
  readonly firstScoredAt?: Date
}

/** A tender that arrived at `createdAt`, scored for the company. */
const tender = (input: TenderInput) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const authority = input.authority ?? `Primăria Timișoara ${unique()}`
    const [a] = yield* sql<{ id: string }>`
      INSERT INTO contracting_authorities (name, normalized_name) VALUES (${authority}, ${authority.toLowerCase()})
      RETURNING id`
    const [t] = yield* sql<{ id: string; ingest_seq: string }>`
      INSERT INTO tenders (source, source_notice_id, title, main_cpv, authority_id, deadline, estimated_value_ron,
                           publish_date, created_at, cancelled_at)
      VALUES ('test', ${unique()}, ${input.title}, '45233140-2', ${a!.id},
              ${input.deadline === undefined ? at("2027-06-30T10:00:00Z") : input.deadline},
              ${input.valueRon === undefined ? null : input.valueRon}, ${input.createdAt}, ${input.createdAt},
              ${input.cancelled ? input.createdAt : null})
      RETURNING id, ingest_seq::text`
    if (input.firstScoredAt !== undefined) {
      yield* sql`INSERT INTO tender_first_scores (tender_id, scored_at) VALUES (${t!.id}, ${input.firstScoredAt})`
    }
    const verdict = input.verdict ?? "GO"
    yield* sql`
      INSERT INTO tender_scores (company_id, tender_id, overall_score, overall_confidence, verdict, score_semantic,
                                 score_keyword, score_cpv, score_value_fit, score_historical, cpv_type,
                                 model_version, scored_at, tender_publish_date, tender_ingest_seq)
      VALUES (${input.companyId}, ${t!.id}, ${input.score ?? (verdict === "GO" ? 82 : verdict === "RESEARCH" ? 55 : 20)},
              0.8, ${verdict}, 0.5, 0.5, 0.5, 0.5, 0.5, 'primary', 'test', ${input.createdAt}, ${input.createdAt},
              ${t!.ingest_seq})`
    return t!.id
  }).pipe(Effect.orDie)

/** Unread (or read) alerts of the account, on a watchlist of the company. */
const alerts = (tenantId: string, companyId: string, tenderId: string, read: ReadonlyArray<boolean>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    for (const isRead of read) {
      const [w] = yield* sql<{ id: string }>`
        INSERT INTO watchlists (tenant_id, company_id, name) VALUES (${tenantId}, ${companyId}, 'Drumuri') RETURNING id`
      yield* sql`
        INSERT INTO alerts (tenant_id, company_id, watchlist_id, tender_id, score, verdict, read, tender_publish_date)
        VALUES (${tenantId}, ${companyId}, ${w!.id}, ${tenderId}, 82, 'GO', ${isRead},
                (SELECT publish_date FROM tenders WHERE id = ${tenderId}))`
    }
  }).pipe(Effect.orDie)

interface SendRow {
  readonly date: string
  readonly covered_from: Date
  readonly covered_to: Date
  readonly email_id: string | null
  readonly queued_at: Date | null
}

const sendsOf = (userId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<SendRow>`
      SELECT d.bucharest_date::text AS date, d.covered_from, d.covered_to, d.email_id::text, e.created_at AS queued_at
      FROM digest_sends d LEFT JOIN email_outbox e ON e.id = d.email_id
      WHERE d.user_id = ${userId} ORDER BY d.bucharest_date`
  ).pipe(Effect.orDie)

const outboxCount = (email: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM email_outbox WHERE to_address = ${email}`
  ).pipe(
    Effect.map((rows) => rows[0]!.n),
    Effect.orDie
  )

const sendDue = Effect.flatMap(DailyDigest, (digest) => digest.sendDue)

/** Real time passing (the TestClock stands still): for the database round trips of a pass. */
const realWait = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/**
 * The worker's schedule (runDigestSchedule) on the TestClock, its passes reported to a queue. `step`
 * moves the clock; when that reaches the hour the schedule sleeps until, it waits for the pass it
 * woke (and for the schedule to sleep again) and returns it; otherwise it returns undefined.
 */
const startSchedule = Effect.gen(function* () {
  const passes = yield* Queue.unbounded<DigestPass>()
  const recording = Effect.map(DailyDigest, (digest) => ({
    sendDue: Effect.tap(digest.sendDue, (pass) => Queue.offer(passes, pass))
  }))
  const fiber = yield* Effect.fork(runDigestSchedule.pipe(Effect.provideServiceEffect(DailyDigest, recording)))
  // The schedule sleeps until the next whole hour (other fibers' sleeps may be listed too).
  const asleep = Effect.gen(function* () {
    const now = yield* TestClock.currentTimeMillis
    const wake = now + Duration.toMillis(untilNextHour(now))
    for (let i = 0; i < 1000 && !Chunk.some(yield* TestClock.sleeps(), (at) => at === wake); i++) yield* realWait(10)
    return wake
  })
  const first = yield* Queue.take(passes)
  let wake = yield* asleep
  return {
    first,
    step: (by: Duration.DurationInput) =>
      Effect.gen(function* () {
        yield* TestClock.adjust(by)
        if ((yield* TestClock.currentTimeMillis) < wake) {
          // Not at the hour yet: a schedule that woke anyway would show a pass here.
          yield* realWait(200)
          return Option.getOrUndefined(yield* Queue.poll(passes))
        }
        const pass = yield* Queue.take(passes)
        wake = yield* asleep
        return pass
      }),
    stop: Fiber.interrupt(fiber)
  }
})

const none: DigestPass = { queued: 0, empty: 0, taken: 0, off: 0 }

describe("the digest's clock", () => {
  it("a pass is due at each whole hour; Bucharest hours start with UTC's, DST days included", () => {
    expect(Duration.toMillis(untilNextHour(at("2026-11-25T05:59:30Z").getTime()))).toBe(30_000)
    expect(Duration.toMillis(untilNextHour(at("2026-11-25T06:00:00Z").getTime()))).toBe(3_600_000)
    expect(digestSlot(at("2026-11-25T06:00:00Z").getTime())).toEqual({ date: "2026-11-25", hour: 8 })
    expect(digestSlot(at("2027-03-28T05:00:00Z").getTime())).toEqual({ date: "2027-03-28", hour: 8 })
    // 21:30 UTC is already the next day in Bucharest.
    expect(digestSlot(at("2026-11-24T22:30:00Z").getTime())).toEqual({ date: "2026-11-25", hour: 0 })
  })

  it("the slot at the exact instants of both DST changes: the skipped hour is never a slot, the repeated one is one day", () => {
    // Spring: 02:59:59 EET, then 04:00:00 EEST; a 3 o'clock user is due from the second (hour 4 >= 3).
    expect(digestSlot(at("2026-03-29T00:59:59Z").getTime())).toEqual({ date: "2026-03-29", hour: 2 })
    expect(digestSlot(at("2026-03-29T01:00:00Z").getTime())).toEqual({ date: "2026-03-29", hour: 4 })
    expect(Duration.toMillis(untilNextHour(at("2026-03-29T00:59:59Z").getTime()))).toBe(1_000)
    // Autumn: 03:59:59 EEST, then 03:00:00 EET, the same date: its digest_sends row is already there.
    expect(digestSlot(at("2026-10-25T00:59:59Z").getTime())).toEqual({ date: "2026-10-25", hour: 3 })
    expect(digestSlot(at("2026-10-25T01:00:00Z").getTime())).toEqual({ date: "2026-10-25", hour: 3 })
    // The day's last hour in Bucharest: 23:59:59 EET on 28 February 2028, then the leap day.
    expect(digestSlot(at("2028-02-28T21:59:59Z").getTime())).toEqual({ date: "2028-02-28", hour: 23 })
    expect(digestSlot(at("2028-02-28T22:00:00Z").getTime())).toEqual({ date: "2028-02-29", hour: 0 })
  })

  it("counts in Romanian (the rule the browser app shares, RomanianFormat)", () => {
    expect(romanianCount(1, "licitație nouă", "licitații noi")).toBe("1 licitație nouă")
    expect(romanianCount(3, "licitație nouă", "licitații noi")).toBe("3 licitații noi")
    expect(romanianCount(20, "alertă", "alerte")).toBe("20 de alerte")
    expect(romanianCount(105, "alertă", "alerte")).toBe("105 alerte")
    expect(romanianCount(1200, "alertă", "alerte")).toBe("1.200 de alerte")
  })

  it("the subject counts in Romanian, its verbs agreeing: 1 se închide, 3 se închid", () => {
    const tender: DigestTender = {
      title: "Pod peste Mureș",
      authority: "Primăria Alba Iulia",
      verdict: "GO",
      score: 80,
      deadline: at("2026-11-22T06:00:00Z"),
      estimatedValueRon: null
    }
    const subjectWith = (newGo: number, closing: number, unreadAlerts: number) =>
      renderDigest({
        now: at("2026-11-20T06:00:00Z"),
        appUrl: APP_URL,
        unreadAlerts,
        companies: [
          {
            companyName: "Drumuri Vest SRL",
            newGo: { tenders: newGo > 0 ? [tender] : [], total: newGo },
            closingSoon: { tenders: closing > 0 ? [tender] : [], total: closing }
          }
        ]
      }).subject
    expect(subjectWith(0, 1, 0)).toBe("Rezumatul zilei 20.11.2026: 1 se închide curând")
    expect(subjectWith(0, 3, 0)).toBe("Rezumatul zilei 20.11.2026: 3 se închid curând")
    expect(subjectWith(1, 1, 1)).toBe(
      "Rezumatul zilei 20.11.2026: 1 licitație nouă care merită, 1 se închide curând, 1 alertă necitită"
    )
    expect(subjectWith(20, 21, 2)).toBe(
      "Rezumatul zilei 20.11.2026: 20 de licitații noi care merită, 21 se închid curând, 2 alerte necitite"
    )
  })

  it("titles and authority names of thousands of characters are cut at a word with '…': a full digest stays far below Gmail's 102 KB", () => {
    const endless = (start: string, times: number) => `${start} ${"drum comunal și podețe ".repeat(times)}etapa a doua`
    const tenders = Array.from(
      { length: 10 },
      (_, i): DigestTender => ({
        title: endless(`Reabilitare ${i}`, 400),
        authority: endless(`Unitatea Administrativ Teritorială ${i}`, 200),
        verdict: "GO",
        score: 80,
        deadline: null,
        estimatedValueRon: null
      })
    )
    const { text, html } = renderDigest({
      now: at("2026-11-20T06:00:00Z"),
      appUrl: APP_URL,
      unreadAlerts: 0,
      companies: [{ companyName: "Firma SRL", newGo: { tenders, total: 10 }, closingSoon: { tenders, total: 10 } }]
    })
    const lines = text.split("\n")
    const titles = lines.filter((line) => line.startsWith("  • ")).map((line) => line.replace(/^ {2}• (\[.*?\] )?/, ""))
    const authorities = lines.filter((line) => line.startsWith("    ")).map((line) => line.trim().split("; ")[0]!)
    expect(titles).toHaveLength(20)
    expect(authorities).toHaveLength(20)
    for (const [shown, max] of [
      ...titles.map((title) => [title, DIGEST_TITLE_MAX] as const),
      ...authorities.map((authority) => [authority, DIGEST_AUTHORITY_MAX] as const)
    ]) {
      expect(shown).toMatch(/ (drum|comunal|și|podețe)…$/)
      expect([...shown].length).toBeGreaterThan(max / 2)
      expect([...shown].length).toBeLessThanOrEqual(max)
      expect(html).toContain(`>${shown}`)
    }
    expect(text + html).not.toContain("etapa a doua")
    expect(Buffer.byteLength(text) + Buffer.byteLength(html)).toBeLessThan(40_000)
  })

  it("the HTML part escapes every value; the rest of a long section is counted", () => {
    const tender = {
      title: "Lucrări <script>alert(1)</script>",
      authority: "A & B",
      verdict: "GO" as const,
      score: 80,
      deadline: null,
      estimatedValueRon: null
    }
    const { html, text, subject } = renderDigest({
      now: at("2026-11-20T06:00:00Z"),
      appUrl: "https://licitatii.example.ro",
      unreadAlerts: 0,
      companies: [
        { companyName: "X <SRL>", newGo: { tenders: [tender], total: 12 }, closingSoon: { tenders: [], total: 0 } }
      ]
    })
    expect(html).not.toContain("<script>")
    expect(html).toContain("Lucrări &lt;script&gt;alert(1)&lt;/script&gt;")
    expect(html).toContain("A &amp; B")
    expect(html).toContain("X &lt;SRL&gt;</h2>")
    expect(text).toContain("  … și încă 11")
    expect(subject).toBe("Rezumatul zilei 20.11.2026: 12 licitații noi care merită")
  })

  it("the plain-text part keeps each name and title on its own line (a line break typed in a name adds none)", () => {
    const tender = {
      title: "Reabilitare\nDJ 107",
      authority: "Primăria\r\nCluj",
      verdict: "GO" as const,
      score: 80,
      deadline: null,
      estimatedValueRon: null
    }
    const { text } = renderDigest({
      now: at("2026-11-20T06:00:00Z"),
      appUrl: "https://licitatii.example.ro",
      unreadAlerts: 0,
      companies: [
        {
          companyName: "Firma SRL\n\n== Altă firmă ==",
          newGo: { tenders: [tender], total: 1 },
          closingSoon: { tenders: [], total: 0 }
        }
      ]
    })
    const lines = text.split("\n")
    expect(lines.filter((line) => line.startsWith("=="))).toEqual(["== Firma SRL == Altă firmă == =="])
    expect(lines).toContain("  • Reabilitare DJ 107")
    expect(lines.some((line) => line.startsWith("    Primăria Cluj; "))).toBe(true)
  })
})

layer(TestLayer, { timeout: Duration.minutes(2) })("the daily digest", (it) => {
  it.effect("DST autumn day (2026-10-25): 03:00 happens twice, the 3 o'clock digest goes out once", () =>
    Effect.gen(function* () {
      yield* onlyNewUsers
      yield* TestClock.setTime(at("2026-10-24T23:30:00Z")) // 02:30 EEST
      const user = yield* account({ hour: 3 })
      yield* tender({
        companyId: user.companies[0]!,
        title: "Reabilitare DJ 107",
        createdAt: at("2026-10-24T20:00:00Z")
      })
      const schedule = yield* startSchedule
      expect(schedule.first).toEqual(none)
      expect(yield* schedule.step(Duration.minutes(30))).toEqual({ ...none, queued: 1 }) // 00:00Z = 03:00 EEST
      expect(yield* schedule.step(HOUR)).toEqual(none) // 01:00Z = 03:00 EET, the same day
      expect(yield* schedule.step(HOUR)).toEqual(none)
      yield* schedule.stop
      const sends = yield* sendsOf(user.userId)
      expect(sends.map((s) => [s.date, s.queued_at?.toISOString()])).toEqual([
        ["2026-10-25", "2026-10-25T00:00:00.000Z"]
      ])
      expect(yield* outboxCount(user.email)).toBe(1)
    })
  )

  it.effect("the content: per company, Romanian, with a plain-text and an HTML part, through SMTP", () =>
    Effect.gen(function* () {
      yield* onlyNewUsers
      const now = at("2026-11-20T06:00:00Z") // 08:00 in Bucharest
      yield* TestClock.setTime(now)
      const user = yield* account({
        hour: 8,
        companies: ["Drumuri Vest SRL", "Apă Curată SA"],
        inactive: "Firmă Inactivă SRL"
      })
      const [roads, water] = user.companies as [string, string]
      const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000)
      const inDays = (d: number) => new Date(now.getTime() + d * 86_400_000)
      const fresh = yield* tender({
        companyId: roads,
        title: "Modernizare drum județean DJ 107 Alba Iulia – Zlatna",
        authority: "Consiliul Județean Alba",
        createdAt: hoursAgo(3),
        score: 91,
        valueRon: 12_500_000,
        deadline: inDays(20)
      })
      yield* tender({
        companyId: roads,
        title: "Covor asfaltic străzi",
        createdAt: hoursAgo(5),
        score: 76,
        deadline: null
      })
      // Older than the window, but closing within 7 days.
      yield* tender({
        companyId: roads,
        title: "Pod peste Mureș",
        createdAt: hoursAgo(72),
        deadline: inDays(2),
        verdict: "GO"
      })
      // Not reported: a SKIP, a passed deadline, a cancelled procedure, a RESEARCH closing in 10 days.
      yield* tender({ companyId: roads, title: "Servicii de curățenie", createdAt: hoursAgo(2), verdict: "SKIP" })
      yield* tender({ companyId: roads, title: "Termen trecut", createdAt: hoursAgo(2), deadline: hoursAgo(1) })
      yield* tender({ companyId: roads, title: "Procedură anulată", createdAt: hoursAgo(2), cancelled: true })
      yield* tender({
        companyId: roads,
        title: "Prea departe",
        createdAt: hoursAgo(90),
        verdict: "RESEARCH",
        deadline: inDays(10)
      })
      yield* tender({
        companyId: water,
        title: "Extindere rețea de apă Sebeș",
        authority: "Apa CTTA SA",
        createdAt: hoursAgo(100),
        verdict: "RESEARCH",
        deadline: inDays(1)
      })
      const inactiveOnes = yield* tender({
        companyId: user.inactive!,
        title: "Licitație a firmei inactive",
        createdAt: hoursAgo(1)
      })
      yield* alerts(user.tenantId, roads, fresh, [false, false, true])
      // An unread alert of the deactivated company is not counted: the digest leaves that company out.
      yield* alerts(user.tenantId, user.inactive!, inactiveOnes, [false])

      // Another account with nothing to report: its day is recorded, no e-mail.
      const quiet = yield* account({ hour: 6 })

      expect(yield* sendDue).toEqual({ ...none, queued: 1, empty: 1 })
      expect((yield* sendsOf(quiet.userId)).map((s) => s.email_id)).toEqual([null])
      expect(yield* outboxCount(quiet.email)).toBe(0)

      const receiver = yield* Effect.acquireRelease(
        Effect.promise(() => startSmtpReceiver()),
        (r) => Effect.promise(() => r.close())
      )
      const deliver = sendDueMail().pipe(
        Effect.provide(SmtpMailer({ url: Redacted.make(receiver.url), from: "Tender Scoring <no-reply@example.test>" }))
      )
      expect(yield* deliver).toBe(1)
      const [mail] = yield* Effect.promise(() => receiver.waitFor(1))
      expect(mail!.envelopeTo).toEqual([user.email])
      expect(mail!.headers["content-type"]).toMatch(/^multipart\/alternative/)
      expect(mail!.headers.subject).toContain("=?UTF-8?") // encoded: the subject has Romanian letters
      expect(mail!.text.split("\n")).toEqual([
        "Bună ziua,",
        "",
        "Rezumatul licitațiilor pentru 20.11.2026.",
        "",
        "Alerte necitite: 2",
        "",
        "== Drumuri Vest SRL ==",
        "",
        "Licitații noi care merită (2):",
        "  • Modernizare drum județean DJ 107 Alba Iulia – Zlatna",
        "    Consiliul Județean Alba; scor 91; valoare estimată 12.500.000 lei; termen 10.12.2026, 08:00 (în 20 de zile)",
        "  • Covor asfaltic străzi",
        expect.stringMatching(/^ {4}Primăria Timișoara \w+; scor 76; fără termen-limită$/),
        "",
        "Se închid în următoarele 7 zile (1):",
        "  • [MERITĂ] Pod peste Mureș",
        expect.stringMatching(/; scor 82; termen 22\.11\.2026, 08:00 \(în 2 zile\)$/),
        "",
        "== Apă Curată SA ==",
        "",
        "Se închid în următoarele 7 zile (1):",
        "  • [DE ANALIZAT] Extindere rețea de apă Sebeș",
        "    Apa CTTA SA; scor 55; termen 21.11.2026, 08:00 (mâine)",
        "",
        `Deschideți aplicația: ${APP_URL}/`,
        "",
        "--",
        "Primiți acest e-mail pentru că ați activat rezumatul zilnic. Îl puteți opri din Setări, în aplicație."
      ])
      const html = mail!.html ?? ""
      expect(html).toContain('<html lang="ro">')
      expect(html).toContain("<h2")
      expect(html).toContain("Drumuri Vest SRL</h2>")
      expect(html).toContain("<strong>Modernizare drum județean DJ 107 Alba Iulia – Zlatna</strong>")
      expect(html).toContain("[DE ANALIZAT]")
      expect(html).toContain(`<a href="${APP_URL}/">`)
      expect(html).not.toMatch(/inactiv|Servicii de curățenie|Termen trecut|anulată|Prea departe/)

      // The next day's "new" starts where this digest ended: only what was scored since. A tender that
      // arrived a minute before this pass but was scored a minute after it is the next digest's.
      yield* tender({
        companyId: water,
        title: "Sosită înainte, punctată după",
        createdAt: at("2026-11-20T05:59:00Z"),
        firstScoredAt: at("2026-11-20T06:01:00Z"),
        score: 70
      })
      // Stamped at 05:55, as its batch was scored, but committed after the 06:00 pass: the "new" window
      // of that pass ended DIGEST_SETTLE (10 minutes) before it, so it is this next digest's.
      yield* tender({
        companyId: water,
        title: "Punctată în timpul trecerii",
        createdAt: at("2026-11-20T05:54:00Z"),
        firstScoredAt: at("2026-11-20T05:55:00Z"),
        score: 71
      })
      yield* TestClock.setTime(at("2026-11-21T06:00:00Z"))
      yield* tender({
        companyId: water,
        title: "Stație de tratare Alba",
        createdAt: at("2026-11-20T15:00:00Z"),
        firstScoredAt: at("2026-11-20T15:02:00Z")
      })
      expect(yield* sendDue).toEqual({ ...none, queued: 1, empty: 1 })
      expect(yield* deliver).toBe(1)
      const [, second] = yield* Effect.promise(() => receiver.waitFor(2))
      expect(second!.text).toContain(
        "Licitații noi care merită (3):\n  • Stație de tratare Alba\n    Primăria Timișoara"
      )
      expect(second!.text).toContain("  • Sosită înainte, punctată după")
      expect(second!.text).toContain("  • Punctată în timpul trecerii")
      expect(second!.text).not.toContain("Modernizare drum")
      const sends = yield* sendsOf(user.userId)
      expect(sends[1]!.covered_from).toEqual(sends[0]!.covered_to)
      expect(sends[0]!.covered_to).toEqual(at("2026-11-20T05:50:00Z"))
      expect(sends[0]!.covered_from).toEqual(at("2026-11-19T06:00:00Z")) // the first looks back 24 h
    }).pipe(Effect.scoped)
  )

  it.effect("the schedule: not before the hour, at the hour, once a day, again the next day", () =>
    Effect.gen(function* () {
      yield* onlyNewUsers
      yield* TestClock.setTime(at("2026-12-02T05:30:00Z")) // 07:30 in Bucharest (UTC+2)
      const user = yield* account({ hour: 8 })
      yield* tender({ companyId: user.companies[0]!, title: "Iluminat public", createdAt: at("2026-12-02T01:00:00Z") })
      const schedule = yield* startSchedule
      expect(schedule.first).toEqual(none)
      expect(yield* schedule.step(Duration.minutes(29))).toBeUndefined() // 07:59: the schedule sleeps on
      expect(yield* sendsOf(user.userId)).toEqual([])
      expect(yield* schedule.step(Duration.minutes(1))).toEqual({ ...none, queued: 1 }) // 08:00
      expect(yield* schedule.step(HOUR)).toEqual(none) // 09:00: today's is done
      yield* schedule.stop

      // A worker (re)started at 07:59:59 the next day: its start pass finds nobody, 08:00 does.
      yield* TestClock.setTime(at("2026-12-03T05:59:59Z"))
      yield* tender({ companyId: user.companies[0]!, title: "Semaforizare", createdAt: at("2026-12-03T01:00:00Z") })
      const next = yield* startSchedule
      expect(next.first).toEqual(none)
      expect(yield* next.step(Duration.seconds(1))).toEqual({ ...none, queued: 1 })
      yield* next.stop
      const sends = yield* sendsOf(user.userId)
      expect(sends.map((s) => [s.date, s.queued_at?.toISOString()])).toEqual([
        ["2026-12-02", "2026-12-02T06:00:00.000Z"],
        ["2026-12-03", "2026-12-03T06:00:00.000Z"]
      ])
      expect(yield* outboxCount(user.email)).toBe(2)
    })
  )

  it.effect("two workers at once: one digest per user and day (digest_sends' key)", () =>
    Effect.gen(function* () {
      yield* onlyNewUsers
      const url = yield* TestDatabaseUrl
      // A second worker: its own pool of connections to the same database.
      const other = yield* Layer.build(
        DigestWorker.pipe(Layer.provide(PgLive({ url: Redacted.make(url), maxConnections: 10 })))
      ).pipe(Effect.map((context) => Context.get(context, DailyDigest)))
      const users = yield* Effect.forEach([1, 2, 3, 4, 5, 6], () => account({ hour: 7 }))
      for (const [day, date] of ["2027-01-11", "2027-01-12", "2027-01-13"].entries()) {
        yield* TestClock.setTime(at(`${date}T05:00:00Z`)) // 07:00 in Bucharest
        for (const user of users) {
          yield* tender({ companyId: user.companies[0]!, title: `Lucrări ${date}`, createdAt: at(`${date}T03:00:00Z`) })
        }
        const [a, b] = yield* Effect.all([sendDue, other.sendDue], { concurrency: "unbounded" })
        expect(a.queued + b.queued).toBe(users.length)
        for (const user of users) expect(yield* outboxCount(user.email)).toBe(day + 1)
      }
    }).pipe(Effect.scoped)
  )

  it.effect(
    "a user who turns the digest off while the pass waits on another worker's claim of their day gets none",
    () =>
      Effect.gen(function* () {
        yield* onlyNewUsers
        yield* TestClock.setTime(at("2026-11-20T06:00:00Z")) // 08:00 in Bucharest
        const user = yield* account({ hour: 8 })
        yield* tender({
          companyId: user.companies[0]!,
          title: "Modernizare DJ 107",
          createdAt: at("2026-11-20T02:00:00Z")
        })
        // Another worker's claim of the same day, in flight on its own connection, then rolled back.
        const url = yield* TestDatabaseUrl
        const other = yield* Layer.build(PgLive({ url: Redacted.make(url), maxConnections: 2 })).pipe(
          Effect.map((context) => Context.get(context, SqlClient.SqlClient))
        )
        const claimed = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const otherWorker = yield* Effect.fork(
          other
            .withTransaction(
              Effect.gen(function* () {
                yield* other`
                INSERT INTO digest_sends (user_id, bucharest_date, covered_from, covered_to)
                VALUES (${user.userId}, '2026-11-20', ${at("2026-11-19T06:00:00Z")}, ${at("2026-11-20T05:50:00Z")})`
                yield* Deferred.succeed(claimed, undefined)
                yield* Deferred.await(release)
                return yield* Effect.fail("the other worker's digest failed")
              })
            )
            .pipe(Effect.either)
        )
        yield* Deferred.await(claimed)
        const pass = yield* Effect.fork(sendDue)
        yield* realWait(500) // the pass has found the user due and waits on the other worker's row
        const settings = yield* DigestSettingsRepo
        expect(yield* settings.set(user.userId, { enabled: false })).toEqual({ enabled: false, hour: 8 })
        yield* Deferred.succeed(release, undefined)
        expect(Either.isLeft(yield* Fiber.join(otherWorker))).toBe(true)
        expect(yield* Fiber.join(pass)).toEqual({ ...none, off: 1 })
        expect(yield* outboxCount(user.email)).toBe(0)
        // The claim is undone: turned on again the same day, the user gets the day's digest.
        yield* settings.set(user.userId, { enabled: true })
        yield* TestClock.setTime(at("2026-11-20T07:00:00Z"))
        expect(yield* sendDue).toEqual({ ...none, queued: 1 })
      }).pipe(Effect.scoped)
  )

  it.effect(
    "turned on again after months off: the first digest looks back 24 hours from turning it on, not to the last before the pause",
    () =>
      Effect.gen(function* () {
        yield* onlyNewUsers
        const user = yield* account({ hour: 8 })
        const sql = yield* SqlClient.SqlClient
        // The last digest before the pause; off on 1 February, on again on 30 June at 18:00.
        yield* sql`
        INSERT INTO digest_sends (user_id, bucharest_date, covered_from, covered_to)
        VALUES (${user.userId}, '2026-02-01', ${at("2026-01-31T05:50:00Z")}, ${at("2026-02-01T05:50:00Z")})`
        const settings = yield* DigestSettingsRepo
        yield* TestClock.setTime(at("2026-02-01T10:00:00Z"))
        yield* settings.set(user.userId, { enabled: false })
        yield* TestClock.setTime(at("2026-06-30T15:00:00Z"))
        yield* settings.set(user.userId, { enabled: true })
        yield* tender({
          companyId: user.companies[0]!,
          title: "Pod peste Mureș (din martie)",
          createdAt: at("2026-03-02T08:00:00Z"),
          firstScoredAt: at("2026-03-02T08:01:00Z")
        })
        yield* tender({
          companyId: user.companies[0]!,
          title: "Iluminat public (de ieri)",
          createdAt: at("2026-06-30T02:00:00Z"),
          firstScoredAt: at("2026-06-30T02:01:00Z")
        })
        yield* TestClock.setTime(at("2026-07-01T05:00:00Z")) // 08:00 in Bucharest (EEST)
        expect(yield* sendDue).toEqual({ ...none, queued: 1 })
        const sends = yield* sendsOf(user.userId)
        expect(sends[1]!.covered_from).toEqual(at("2026-06-29T15:00:00Z"))
        const [mail] = yield* sql<{
          body_text: string
        }>`SELECT body_text FROM email_outbox WHERE id = ${sends[1]!.email_id}`
        expect(mail!.body_text).toContain("Licitații noi care merită (1):\n  • Iluminat public (de ieri)")
        expect(mail!.body_text).not.toContain("Pod peste Mureș")
        // Changing only the hour later on moves nothing: the next digest starts where this one ended.
        yield* settings.set(user.userId, { enabled: true, hour: 9 })
        yield* TestClock.setTime(at("2026-07-02T06:00:00Z")) // 09:00 in Bucharest
        yield* sendDue
        const [, , next] = yield* sendsOf(user.userId)
        expect(next!.covered_from).toEqual(sends[1]!.covered_to)
      }).pipe(Effect.scoped)
  )

  it.effect("DST spring day (2027-03-28): 8 o'clock is 05:00 UTC, and a 3 o'clock digest goes out at 04:00", () =>
    Effect.gen(function* () {
      yield* onlyNewUsers
      yield* TestClock.setTime(at("2027-03-28T00:30:00Z")) // 02:30 EET
      const early = yield* account({ hour: 3 })
      const usual = yield* account({ hour: 8 })
      for (const user of [early, usual]) {
        yield* tender({ companyId: user.companies[0]!, title: "Canalizare", createdAt: at("2027-03-27T22:00:00Z") })
      }
      const schedule = yield* startSchedule
      expect(schedule.first).toEqual(none)
      expect(yield* schedule.step(Duration.minutes(30))).toEqual({ ...none, queued: 1 }) // 01:00Z = 04:00 EEST
      for (const _ of [2, 3, 4]) expect(yield* schedule.step(HOUR)).toEqual(none) // 05:00 to 07:00 EEST
      expect(yield* schedule.step(HOUR)).toEqual({ ...none, queued: 1 }) // 05:00Z = 08:00 EEST
      yield* schedule.stop
      expect((yield* sendsOf(early.userId)).map((s) => s.queued_at?.toISOString())).toEqual([
        "2027-03-28T01:00:00.000Z"
      ])
      expect((yield* sendsOf(usual.userId)).map((s) => s.queued_at?.toISOString())).toEqual([
        "2027-03-28T05:00:00.000Z"
      ])
    })
  )
})
