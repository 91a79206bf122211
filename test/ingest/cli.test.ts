import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Schedule, TestServices } from "effect"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { ScoreTenders } from "../../src/infra/scoring/ScoringJobKinds.js"
import { jobHandlers } from "../../src/workers/handlers.js"
import { WorkerLive } from "../../src/workers/Worker.js"
import { TestDatabaseLive, TestDatabaseUrl } from "../support/TestDatabase.js"
import { fixture, fixturePath, toWindows1250 } from "./support.js"

interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * `npm run -s cli -- tenders import …` as a child process against this file's database; `whileRunning`
 * gets the child (to signal it) and runs beside it.
 */
const importTenders = (
  databaseUrl: string,
  args: ReadonlyArray<string>,
  stdin?: string,
  whileRunning: (child: ChildProcess) => Effect.Effect<unknown, unknown, SqlClient.SqlClient> = () => Effect.void
) =>
  Effect.gen(function* () {
    const child = spawn(process.execPath, ["src/bin/launch.mjs", "cli", "tenders", "import", ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => {
      stdout += chunk
    })
    child.stderr.on("data", (chunk) => {
      stderr += chunk
    })
    const closed = new Promise<CliRun>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })))
    child.stdin.end(stdin ?? "")
    yield* Effect.orDie(whileRunning(child))
    return yield* Effect.promise(() => closed)
  })

/** Each child process takes ~1 s to start (the CLI's bundle, as `npm run cli` runs it); more on a busy 2-core machine. */
const CLI_TIMEOUT = 180_000

const summaryOf = (run: CliRun) => {
  const lines = run.stdout.trim().split("\n")
  expect(lines).toHaveLength(1)
  const summary = JSON.parse(lines[0]!)
  expect(Object.keys(summary)).toEqual(["imported", "updated", "skipped", "scored"])
  expect(Number.isInteger(summary.scored) && summary.scored >= 0).toBe(true)
  return summary as { imported: number; updated: number; skipped: number; scored: number }
}

const tenderIds = (source: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ source_notice_id: string; id: string; ingest_seq: string }>`
        SELECT source_notice_id, id, ingest_seq::text FROM tenders WHERE source = ${source} ORDER BY source_notice_id`
  )

layer(TestDatabaseLive, { timeout: 120_000 })("tenders import (CLI, child process)", (it) => {
  it.effect(
    "imports a CSV file, skipping malformed rows in the middle with their line numbers; re-import updates",
    () =>
      Effect.gen(function* () {
        const url = yield* TestDatabaseUrl
        const first = yield* importTenders(url, [fixturePath("native/tenders.csv")])
        expect(first.code).toBe(0)
        expect(summaryOf(first)).toMatchObject({ imported: 4, updated: 0, skipped: 2 })
        const skipLines = first.stderr.split("\n").filter((line) => line.startsWith("skipped "))
        expect(skipLines).toHaveLength(2)
        expect(skipLines[0]).toMatch(/^skipped line 3: cpv_codes: wrong check digit in CPV code "45000000-8"/)
        expect(skipLines[1]).toMatch(/^skipped line 4: /)
        // Only this file's notices: another test imports JSON-lines notices of source "demo" too.
        const csvIds = Effect.map(tenderIds("demo"), (rows) =>
          rows.filter((t) => t.source_notice_id.startsWith("CSV-"))
        )
        const stored = yield* csvIds
        expect(stored.map((t) => t.source_notice_id)).toEqual(["CSV-1", "CSV-4", "CSV-5", "CSV-6"])

        const sql = yield* SqlClient.SqlClient
        const authorities = yield* sql<{ n: number }>`
        SELECT count(DISTINCT authority_id)::int AS n FROM tenders
        WHERE source = 'demo' AND source_notice_id LIKE 'CSV-%'`
        expect(authorities[0]!.n).toBe(2)

        const again = yield* importTenders(url, ["--format", "csv", fixturePath("native/tenders.csv")])
        expect(again.code).toBe(0)
        expect(summaryOf(again)).toMatchObject({ imported: 0, updated: 4, skipped: 2 })
        expect(yield* csvIds).toEqual(stored)
      }),
    CLI_TIMEOUT
  )

  it.effect(
    "--queue stores the tenders and queues a tenders.score job for the workers instead of scoring",
    () =>
      Effect.gen(function* () {
        const url = yield* TestDatabaseUrl
        const sql = yield* SqlClient.SqlClient
        const run = yield* importTenders(url, ["--queue", fixturePath("native/tenders.csv")])
        expect(run.code).toBe(0)
        const summary = JSON.parse(run.stdout.trim())
        expect(Object.keys(summary)).toEqual(["imported", "updated", "skipped", "scored", "queued"])
        expect(summary).toMatchObject({ skipped: 2, scored: 0, queued: 4 })
        const jobs = yield* sql<{ payload: { tenderIds: Array<string>; isNew: Array<string> } }>`
          SELECT payload FROM jobs WHERE kind = ${ScoreTenders.name} AND status = 'queued'`
        expect(jobs).toHaveLength(1)
        const stored = yield* sql<{ id: string }>`
          SELECT id FROM tenders WHERE source = 'demo' AND source_notice_id LIKE 'CSV-%'`
        expect([...jobs[0]!.payload.tenderIds].sort()).toEqual(stored.map((t) => t.id).sort())
        expect(jobs[0]!.payload.isNew).toHaveLength(summary.imported)
        yield* sql`DELETE FROM jobs WHERE kind = ${ScoreTenders.name}`
      }),
    CLI_TIMEOUT
  )

  it.effect(
    "--queue splits a large file into tenders.score jobs of at most 250 tenders, so several workers share it",
    () =>
      Effect.gen(function* () {
        const url = yield* TestDatabaseUrl
        const sql = yield* SqlClient.SqlClient
        const lines = Array.from({ length: 600 }, (_, i) =>
          JSON.stringify({
            source: "demo",
            source_id: `SPLIT-${i}`,
            title: `Lucrări de reparații drumuri, lotul ${i}`,
            cpv_codes: ["45233142-6"],
            contracting_authority: { name: "Comuna Florești", county: "Cluj" },
            publish_date: "2026-11-20T08:00:00Z",
            source_url: `https://example.test/split-${i}`
          })
        )
        const run = yield* importTenders(url, ["--queue", "-"], `${lines.join("\n")}\n`)
        expect(run.code).toBe(0)
        expect(JSON.parse(run.stdout.trim())).toMatchObject({ imported: 600, queued: 600 })
        const jobs = yield* sql<{ payload: { tenderIds: Array<string>; isNew: Array<string> } }>`
          SELECT payload FROM jobs WHERE kind = ${ScoreTenders.name} AND status = 'queued' ORDER BY id`
        expect(jobs.map((job) => job.payload.tenderIds.length)).toEqual([250, 250, 100])
        const stored = yield* sql<{ id: string }>`
          SELECT id FROM tenders WHERE source = 'demo' AND source_notice_id LIKE 'SPLIT-%'`
        const queued = jobs.flatMap((job) => job.payload.tenderIds)
        expect(new Set(queued).size).toBe(600)
        expect([...queued].sort()).toEqual(stored.map((t) => t.id).sort())
        for (const job of jobs) expect(job.payload.isNew).toEqual(job.payload.tenderIds)
        yield* sql`DELETE FROM jobs WHERE kind = ${ScoreTenders.name}`
      }),
    CLI_TIMEOUT
  )

  it.effect(
    'reads stdin when FILE is "-"',
    () =>
      Effect.gen(function* () {
        const url = yield* TestDatabaseUrl
        const run = yield* importTenders(url, ["-"], fixture("native/tenders.jsonl"))
        expect(run.code).toBe(0)
        expect(summaryOf(run)).toMatchObject({ imported: 2, updated: 0, skipped: 2 })
        expect(run.stderr).toMatch(/skipped line 2: not valid JSON/)
        expect(run.stderr).toMatch(/skipped line 3: title/)
      }),
    CLI_TIMEOUT
  )

  it.effect(
    'keeps a notice\'s source_url only when it is an absolute http(s) URL; any other link is stored as "" and the notice is taken in',
    () =>
      Effect.gen(function* () {
        const url = yield* TestDatabaseUrl
        const sql = yield* SqlClient.SqlClient
        const links = [
          ["javascript:alert(1)", ""],
          ["JavaScript:alert(document.cookie)//https://e-licitatie.ro/", ""],
          ["file:///etc/passwd", ""],
          ["data:text/html,<script>alert(1)</script>", ""],
          ["//evil.example/notice", ""],
          ["/pub/notice/view/1", ""],
          ["http:example.ro", ""],
          ["https://", ""],
          ["https://e-licitatie.ro/pub/notice/1\nsecond line", ""],
          [
            "  https://e-licitatie.ro/pub/notice/c-notice/view/100224  ",
            "https://e-licitatie.ro/pub/notice/c-notice/view/100224"
          ],
          [
            "HTTP://ted.europa.eu/udl?uri=TED:NOTICE:566234-2020:TEXT:DA:HTML",
            "HTTP://ted.europa.eu/udl?uri=TED:NOTICE:566234-2020:TEXT:DA:HTML"
          ]
        ] as const
        const dir = mkdtempSync(join(tmpdir(), "tss-import-"))
        const file = join(dir, "links.jsonl")
        const notice = (i: number, link: string) =>
          JSON.stringify({
            source: "demo",
            source_id: `LINK-${i}`,
            title: `Reparații drumuri comunale, lotul ${i}`,
            cpv_codes: ["45233142-6"],
            contracting_authority: { name: "Comuna Florești", county: "Cluj" },
            publish_date: "2026-11-20T08:00:00Z",
            source_url: link
          })
        writeFileSync(file, `${links.map(([link], i) => notice(i, link)).join("\n")}\n`)
        const run = yield* importTenders(url, [file])
        rmSync(dir, { recursive: true, force: true })
        expect(run.code).toBe(0)
        expect(summaryOf(run)).toMatchObject({ imported: links.length, skipped: 0 })
        const stored = yield* sql<{ source_notice_id: string; source_url: string }>`
          SELECT source_notice_id, source_url FROM tenders WHERE source = 'demo' AND source_notice_id LIKE 'LINK-%'`
        const byId = new Map(stored.map((row) => [row.source_notice_id, row.source_url]))
        expect(links.map((_, i) => byId.get(`LINK-${i}`))).toEqual(links.map(([, kept]) => kept))
      }),
    CLI_TIMEOUT
  )

  it.effect(
    "imports TED XML, eForms and SICAP files, auto-detected or named",
    () =>
      Effect.gen(function* () {
        const url = yield* TestDatabaseUrl
        const ted = yield* importTenders(url, [
          "--format",
          "ted-xml",
          fixturePath("ted-xml/ro-f03-award.synthetic.xml")
        ])
        expect(summaryOf(ted)).toMatchObject({ imported: 1, skipped: 0 })
        const eforms = yield* importTenders(url, [fixturePath("eforms/cn_24_open.xml")])
        expect(summaryOf(eforms)).toMatchObject({ imported: 1, skipped: 0 })
        // The change notice updates the notice it changes.
        const change = yield* importTenders(url, [fixturePath("eforms/change-cn_24_open_dates.xml")])
        expect(summaryOf(change)).toMatchObject({ imported: 0, updated: 1, skipped: 0 })
        const pin = yield* importTenders(url, [fixturePath("eforms/pin-only_24.xml")])
        expect(summaryOf(pin)).toMatchObject({ imported: 0, updated: 0, skipped: 1 })
        expect(pin.stderr).toMatch(/skipped notice f252f386-55ac-4fa8-9be4-9f950b9904c8: a prior information notice/)
        const sicap = yield* importTenders(url, [fixturePath("sicap/sicap_pnrr_direct_awards_until_2024-03.csv")])
        expect(summaryOf(sicap)).toMatchObject({ imported: 358, updated: 0, skipped: 0 })
        const api = yield* importTenders(url, ["--format", "sicap", fixturePath("sicap/sicap_api_samples.json")])
        expect(summaryOf(api)).toMatchObject({ imported: 2, skipped: 0 })

        const sql = yield* SqlClient.SqlClient
        const [award] = yield* sql<{ notice_type: string; winner_fiscal_codes: Array<string> }>`
        SELECT notice_type, winner_fiscal_codes FROM tenders WHERE source = 'sicap' AND source_notice_id = 'CAN1008830'`
        expect(award).toEqual({ notice_type: "award", winner_fiscal_codes: ["22505268", "24205100"] })
      }),
    CLI_TIMEOUT
  )

  it.effect(
    "an eForms change notice that cancels the notice it changes (reason `cancel`) closes its tender; another reason does not",
    () =>
      Effect.gen(function* () {
        const url = yield* TestDatabaseUrl
        const sql = yield* SqlClient.SqlClient
        const write = yield* scratchFiles
        // The real notice and its real change, under ids of this test's own; the change's reason is
        // the sample's `update-add`, then `cancel`, "Notice cancelled" (BT-140).
        const noticeId = randomUUID()
        const withIds = (xml: string) =>
          xml
            .replaceAll("c4c415ee-ac08-4465-8fa6-57568cf69462", noticeId)
            .replace("71397268-6c47-4f2f-8ab0-f41a26138f81", randomUUID())
        const change = fixture("eforms/change-cn_24_open_dates.xml")
        const reason = '<cbc:ReasonCode listName="change-corrig-justification">update-add</cbc:ReasonCode>'
        expect(change).toContain(reason)
        const original = write("cn.xml", Buffer.from(withIds(fixture("eforms/cn_24_open.xml"))))
        const updated = write("change-update.xml", Buffer.from(withIds(change)))
        const cancelled = write(
          "change-cancel.xml",
          Buffer.from(withIds(change.replace(reason, reason.replace("update-add", "cancel"))))
        )
        const cancelledAt = sql<{ cancelled_at: Date | null }>`
          SELECT cancelled_at FROM tenders WHERE source = 'ted-eforms' AND source_notice_id = ${noticeId}`
        expect(summaryOf(yield* importTenders(url, [original]))).toMatchObject({ imported: 1, skipped: 0 })
        expect(summaryOf(yield* importTenders(url, [updated]))).toMatchObject({ imported: 0, updated: 1 })
        expect((yield* cancelledAt)[0]?.cancelled_at).toBeNull()
        expect(summaryOf(yield* importTenders(url, [cancelled]))).toMatchObject({ imported: 0, updated: 1 })
        expect((yield* cancelledAt)[0]?.cancelled_at).toBeInstanceOf(Date)
      }).pipe(Effect.scoped),
    CLI_TIMEOUT
  )

  it.effect(
    "an unreadable file or an unknown format fails with a message and prints no summary (an unknown format: one line naming the option and its choices, as --encoding)",
    () =>
      Effect.gen(function* () {
        const url = yield* TestDatabaseUrl
        const missing = yield* importTenders(url, ["/no/such/file.csv"])
        expect(missing.code).toBe(1)
        expect(missing.stdout).toBe("")
        expect(missing.stderr).toMatch(/Cannot read \/no\/such\/file\.csv/)
        const badFormat = yield* importTenders(url, ["--format", "xlsx", fixturePath("native/tenders.csv")])
        expect(badFormat.code).toBe(1)
        expect(badFormat.stdout).toBe("")
        expect(badFormat.stderr).toBe('--format must be one of auto, json, csv, ted-xml, eforms, sicap, got "xlsx"\n')
      }),
    CLI_TIMEOUT
  )

  it.effect(
    "a file no format reads, or invalid as a whole: one line naming the format tried and why, exit 1, nothing written",
    () =>
      Effect.gen(function* () {
        const url = yield* TestDatabaseUrl
        const sql = yield* SqlClient.SqlClient
        const countTenders = Effect.map(sql<{ n: number }>`SELECT count(*)::int AS n FROM tenders`, (r) => r[0]!.n)
        const before = yield* countTenders
        const dir = mkdtempSync(join(tmpdir(), "tss-import-"))
        const notes = join(dir, "notes.txt")
        writeFileSync(notes, "Shopping list\nmilk, eggs\nbread\n")
        const empty = join(dir, "empty.json")
        writeFileSync(empty, "\n  \n")
        const html = join(dir, "page.xml")
        writeFileSync(html, "<html><body><p>Not a notice</p></body></html>")
        const scalar = join(dir, "number.json")
        writeFileSync(scalar, "42")
        const cases = [
          {
            args: [notes],
            expected:
              /^Cannot import .*notes\.txt: tried csv \(auto-detected: .*\): the header row lacks the columns source, source_id, title, cpv_codes, contracting_authority_name, publish_date .*nothing was written$/
          },
          {
            args: ["--format", "json", notes],
            expected: /^Cannot import .*notes\.txt: tried json: not valid JSON: .*nothing was written$/
          },
          { args: ["--format", "ted-xml", html], expected: /tried ted-xml: no TED_EXPORT element/ },
          {
            args: [html],
            expected:
              /tried eforms \(auto-detected: XML without a TED_EXPORT root\): the root element <html> is not an eForms/
          },
          { args: [empty], expected: /^Cannot import .*empty\.json: tried auto-detection: the file is empty/ },
          { args: ["--format", "json", scalar], expected: /tried json: the document is a number, not a record/ }
        ]
        const runs = yield* Effect.forEach(cases, ({ args }) => importTenders(url, args), { concurrency: 3 })
        runs.forEach((run, i) => {
          const what = cases[i]!.args.join(" ")
          expect(run.code, what).toBe(1)
          expect(run.stdout, what).toBe("")
          const lines = run.stderr.trim().split("\n")
          expect(lines, what).toHaveLength(1)
          expect(lines[0], what).toMatch(cases[i]!.expected)
        })
        expect(yield* countTenders).toBe(before)
        rmSync(dir, { recursive: true, force: true })
      }),
    2 * CLI_TIMEOUT // six child processes
  )

  it.effect(
    "record-level skips stay: a valid file whose records are all invalid is imported with every record skipped, exit 0",
    () =>
      Effect.gen(function* () {
        const url = yield* TestDatabaseUrl
        // The third's CPV code carries a line break and a would-be line of the CLI's own into its reason.
        const forged = {
          source: "x",
          source_id: "forged",
          title: "Lucrări",
          cpv_codes: ["45000000-8\nskipped record 9: made up"],
          contracting_authority: { name: "Primăria" },
          publish_date: "2026-11-20T08:00:00Z"
        }
        const run = yield* importTenders(url, ["-"], JSON.stringify([{ source: "x" }, { title: "no id" }, forged]))
        expect(run.code).toBe(0)
        expect(summaryOf(run)).toEqual({ imported: 0, updated: 0, skipped: 3, scored: 0 })
        expect(run.stderr).toMatch(/^skipped record 1: /m)
        expect(run.stderr).toMatch(/^skipped record 2: /m)
        // One line per skip: the reason's line break is written as "\n".
        const lines = run.stderr.split("\n").filter((line) => line.startsWith("skipped "))
        expect(lines).toHaveLength(3)
        expect(lines[2]).toMatch(/^skipped record 3: .*45000000-8\\nskipped record 9: made up/)
      }),
    CLI_TIMEOUT
  )

  it.effect(
    "scores what it stores: alerts for new tenders only, never repeated on re-import",
    () =>
      Effect.gen(function* () {
        const url = yield* TestDatabaseUrl
        const sql = yield* SqlClient.SqlClient
        const [tenant] = yield* sql<{
          id: string
        }>`INSERT INTO tenants (name, plan) VALUES ('Ingest', 'activ') RETURNING id`
        const [company] = yield* sql<{ id: string }>`
        INSERT INTO companies (tenant_id, name, description)
        VALUES (${tenant!.id}, 'Soft SRL', 'Mentenanță și dezvoltare software') RETURNING id`
        yield* sql`
        INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords, min_score)
        VALUES (${tenant!.id}, ${company!.id}, 'IT', ${["72260000-5"]}::char(10)[], ${["mentenanta"]}::text[], 0)`
        const records = [1, 2, 3].map((i) =>
          JSON.stringify({
            source: "scored",
            source_id: `S-${i}`,
            title: `Servicii de mentenanţă software ${i}`,
            cpv_codes: ["72260000-5"],
            contracting_authority: { name: "Primăria Municipiului Cluj-Napoca", fiscal_code: "4305857" },
            estimated_value_ron: 100000,
            publish_date: "2026-11-20T08:00:00Z"
          })
        )
        const first = summaryOf(yield* importTenders(url, ["-"], records.join("\n")))
        expect(first).toMatchObject({ imported: 3, updated: 0, skipped: 0 })
        expect(first.scored).toBeGreaterThanOrEqual(3)
        const alertsOf = sql<{ n: number }>`
        SELECT count(*)::int AS n FROM alerts a JOIN tenders t ON t.id = a.tender_id WHERE t.source = 'scored'`
        const scoresOf = sql<{ n: number }>`
        SELECT count(*)::int AS n FROM tender_scores s JOIN tenders t ON t.id = s.tender_id
        WHERE t.source = 'scored' AND s.company_id = ${company!.id}`
        expect((yield* scoresOf)[0]!.n).toBe(3)
        expect((yield* alertsOf)[0]!.n).toBe(3)

        const again = summaryOf(yield* importTenders(url, ["-"], records.join("\n")))
        expect(again).toMatchObject({ imported: 0, updated: 3, skipped: 0 })
        expect(again.scored).toBeGreaterThanOrEqual(3)
        expect((yield* alertsOf)[0]!.n).toBe(3)
      }),
    CLI_TIMEOUT
  )

  it.effect(
    "Ctrl-C half-way: exit 130 with one line, the stored tenders' scoring queued (new ones alert once a worker scores them), and a re-run leaves every tender alerted once",
    () =>
      // Live services: it waits in real time for the child's first chunk and for the worker.
      TestServices.provideLive(
        Effect.gen(function* () {
          const url = yield* TestDatabaseUrl
          const sql = yield* SqlClient.SqlClient
          const [tenant] = yield* sql<{
            id: string
          }>`INSERT INTO tenants (name, plan) VALUES ('Ingest', 'activ') RETURNING id`
          const [company] = yield* sql<{ id: string }>`
          INSERT INTO companies (tenant_id, name, description)
          VALUES (${tenant!.id}, 'Soft SRL', 'Mentenanță și dezvoltare software') RETURNING id`
          const [watchlist] = yield* sql<{ id: string }>`
          INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords, min_score)
          VALUES (${tenant!.id}, ${company!.id}, 'IT', ${["72260000-5"]}::char(10)[], ${["mentenanta"]}::text[], 0)
          RETURNING id`
          // Enough chunks of 500 that the signal lands while they are stored.
          const total = 20_000
          const dir = mkdtempSync(join(tmpdir(), "tss-import-"))
          const file = join(dir, "large.jsonl")
          const record = (i: number) =>
            JSON.stringify({
              source: "interrupted",
              source_id: `INT-${i}`,
              title: `Servicii de mentenanţă software ${i}`,
              cpv_codes: ["72260000-5"],
              contracting_authority: { name: "Primăria Municipiului Cluj-Napoca", fiscal_code: "4305857" },
              estimated_value_ron: 100000,
              publish_date: "2026-11-20T08:00:00Z"
            })
          writeFileSync(file, `${Array.from({ length: total }, (_, i) => record(i)).join("\n")}\n`)
          const storedIds = Effect.map(
            sql<{ id: string }>`SELECT id FROM tenders WHERE source = 'interrupted' ORDER BY id`,
            (rows) => rows.map((row) => row.id)
          )
          const alerts = Effect.map(
            sql<{ n: number }>`
            SELECT count(*)::int AS n FROM alerts a JOIN tenders t ON t.id = a.tender_id
            WHERE t.source = 'interrupted' AND a.watchlist_id = ${watchlist!.id}`,
            (rows) => rows[0]!.n
          )

          // The operator's Ctrl-C once the first chunk is stored.
          const interrupted = yield* importTenders(url, [file], undefined, (child) =>
            storedIds.pipe(
              Effect.repeat({ until: (ids) => ids.length > 0, schedule: Schedule.spaced("50 millis") }),
              Effect.timeout("90 seconds"),
              Effect.andThen(() => child.kill("SIGINT"))
            )
          )
          const stored = yield* storedIds
          expect(stored.length).toBeGreaterThan(0)
          expect(stored.length).toBeLessThan(total)
          expect(interrupted.code).toBe(130)
          expect(interrupted.stdout, "no summary").toBe("")
          expect(interrupted.stderr).toBe(
            `interrupted: ${stored.length} of ${total} tenders stored; their scoring is queued for the workers\n`
          )
          // As --queue queues it: jobs of at most 250 tenders, every stored tender marked new.
          const jobs = yield* sql<{ payload: { tenderIds: Array<string>; isNew: Array<string> } }>`
          SELECT payload FROM jobs WHERE kind = ${ScoreTenders.name} AND status = 'queued'`
          expect(Math.max(...jobs.map((job) => job.payload.tenderIds.length))).toBeLessThanOrEqual(250)
          expect(jobs.flatMap((job) => job.payload.tenderIds).sort()).toEqual(stored)
          expect(jobs.flatMap((job) => job.payload.isNew).sort()).toEqual(stored)
          expect(yield* alerts).toBe(0)

          // A worker scores them: each alerts, as a new tender of an uninterrupted import would.
          yield* alerts.pipe(
            Effect.repeat({ until: (n) => n === stored.length, schedule: Schedule.spaced("200 millis") }),
            Effect.timeout("60 seconds"),
            Effect.provide(
              WorkerLive({ handlers: jobHandlers, pollEvery: "200 millis" }).pipe(Layer.provide(RepositoriesLive))
            )
          )

          // The re-run stores the rest: the stored ones are updates and do not alert again.
          const again = summaryOf(yield* importTenders(url, [file]))
          rmSync(dir, { recursive: true, force: true })
          expect(again).toMatchObject({ imported: total - stored.length, updated: stored.length, skipped: 0 })
          expect(yield* alerts).toBe(total)
          // Its watchlist would alert on the other tests' tenders.
          yield* sql`DELETE FROM tenants WHERE id = ${tenant!.id}`
        })
      ),
    2 * CLI_TIMEOUT
  )
})

/** Files written for one test and removed after it. */
const scratchFiles = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "tss-encoding-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
).pipe(
  Effect.map((dir) => (name: string, bytes: Uint8Array) => {
    const file = join(dir, name)
    writeFileSync(file, bytes)
    return file
  })
)

/** The one line a refused run prints: exit 1, nothing on stdout. */
const refusalLine = (run: CliRun) => {
  expect(run.code).toBe(1)
  expect(run.stdout).toBe("")
  const lines = run.stderr.trim().split("\n")
  expect(lines).toHaveLength(1)
  return lines[0]!
}

const storedTenders = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ source_notice_id: string; title: string; authority: string }>`
    SELECT t.source_notice_id, t.title, a.name AS authority
    FROM tenders t JOIN contracting_authorities a ON a.id = t.authority_id ORDER BY t.source_notice_id`
)

// A database of its own: "nothing stored" means no tender at all, and the SEAP row below is also in the
// export the other tests import.
layer(TestDatabaseLive, { timeout: 120_000 })(
  "tenders import: the file's character encoding (CLI, child process)",
  (it) => {
    // A real row of SEAP's direct-awards export (DAN2055319: ș ț ă î â, cedilla Ş Ţ and „ ” quotes), saved
    // as Excel on a Romanian Windows saves a CSV: Windows-1250, one byte a letter.
    const seapExport = fixture("sicap/sicap_pnrr_direct_awards_until_2024-03.csv").split("\n")
    const seapRow = `${seapExport[0]}\r\n${seapExport.find((line) => line.includes(",DAN2055319,"))}\r\n`
    const windows1250Csv = toWindows1250(seapRow)
    const seapTitle =
      "Furnizare manual și licență scală de inteligență în cadrul proiectului: ”DOTAREA CU MOBILIER, MATERIALE DIDACTICE ȘI ECHIPAMENTE DIGITALE A LICEULUI TEHNOLOGIC „SFÂNTUL GHEORGHE”, DIN ORAȘUL SÂNGEORGIU DE PĂDURE, JUDEȚUL MUREȘ”, finanțat prin PNRR."

    it.effect(
      "a Windows-1250 SEAP CSV is refused as not UTF-8: one line naming the file, the first invalid byte's offset and --encoding windows-1250, exit 1, nothing stored",
      () =>
        Effect.gen(function* () {
          const url = yield* TestDatabaseUrl
          const file = (yield* scratchFiles)("seap-excel.csv", windows1250Csv)
          const offset = windows1250Csv.findIndex((byte) => byte >= 0x80)
          expect(windows1250Csv[offset]).toBe(0xba) // the "ș" of "manual și"
          const runs = yield* Effect.all(
            [importTenders(url, [file]), importTenders(url, ["--encoding", "utf-8", file])],
            {
              concurrency: 2
            }
          )
          for (const run of runs) {
            expect(refusalLine(run)).toBe(
              `Cannot import ${file}: not UTF-8: byte 0xBA (byte offset ${offset}, line 2) is not valid UTF-8; if it is Windows-1250 (a SEAP CSV saved by Excel on a Romanian Windows) pass --encoding windows-1250, or convert it to UTF-8; nothing was written`
            )
          }
          expect(yield* storedTenders).toEqual([])
        }).pipe(Effect.scoped),
      CLI_TIMEOUT
    )

    it.effect(
      "the same file with --encoding windows-1250 imports with its Romanian letters (cedillas stored as comma-below)",
      () =>
        Effect.gen(function* () {
          const url = yield* TestDatabaseUrl
          const file = (yield* scratchFiles)("seap-excel.csv", windows1250Csv)
          const run = yield* importTenders(url, ["--encoding", "windows-1250", file])
          expect(run.code).toBe(0)
          expect(summaryOf(run)).toMatchObject({ imported: 1, skipped: 0 })
          expect(yield* storedTenders).toEqual([
            { source_notice_id: "DAN2055319", title: seapTitle, authority: "Orasul Sângeorgiu de Padure" }
          ])
        }).pipe(Effect.scoped),
      CLI_TIMEOUT
    )

    it.effect(
      "an unknown --encoding is a usage error listing the accepted ones; one that contradicts the bytes is refused",
      () =>
        Effect.gen(function* () {
          const url = yield* TestDatabaseUrl
          const before = yield* storedTenders
          const file = (yield* scratchFiles)("seap-excel.csv", windows1250Csv)
          const utf8 = fixturePath("sicap/sicap_pnrr_direct_awards_until_2024-03.csv")
          const [unknown, contradicted] = yield* Effect.all(
            [
              importTenders(url, ["--encoding", "latin1", file]),
              importTenders(url, ["--encoding", "windows-1250", utf8])
            ],
            { concurrency: 2 }
          )
          expect(refusalLine(unknown)).toBe('--encoding must be one of utf-8, windows-1250, iso-8859-2, got "latin1"')
          // SEAP's own export is UTF-8: read as Windows-1250 its "„" would be stored as "â€ž".
          expect(refusalLine(contradicted)).toMatch(
            /^Cannot import .*: not windows-1250: its non-ASCII text is valid UTF-8, so it is UTF-8 \(.*\): drop --encoding windows-1250; nothing was written$/
          )
          expect(yield* storedTenders).toEqual(before)
        }).pipe(Effect.scoped),
      CLI_TIMEOUT
    )

    it.effect(
      "an XML file is read in the encoding its prolog declares; bytes that contradict the declaration are refused",
      () =>
        Effect.gen(function* () {
          const url = yield* TestDatabaseUrl
          const write = yield* scratchFiles
          const tedXml = fixture("ted-xml/ro-f03-award.synthetic.xml")
          const declared = write(
            "ted-1250.xml",
            toWindows1250(tedXml.replace('encoding="UTF-8"', 'encoding="windows-1250"'))
          )
          const mislabelled = write("ted-mislabelled.xml", toWindows1250(tedXml))
          const [refused, imported] = yield* Effect.all(
            [importTenders(url, [mislabelled]), importTenders(url, [declared])],
            { concurrency: 2 }
          )
          expect(refusalLine(refused)).toMatch(
            /^Cannot import .*ted-mislabelled\.xml: not UTF-8 as its XML declaration says: byte 0xBA \(byte offset \d+, line \d+\) is not valid UTF-8; .*; nothing was written$/
          )
          expect(summaryOf(imported)).toMatchObject({ imported: 1, skipped: 0 })
          const [tender] = (yield* storedTenders).filter((t) => t.source_notice_id === "612345-2021")
          expect(tender).toMatchObject({ authority: "Spitalul Clinic Județean de Urgență Timișoara" })
          expect(tender!.title).toContain("secția ATI")
        }).pipe(Effect.scoped),
      CLI_TIMEOUT
    )

    it.effect(
      "a UTF-8 byte order mark is skipped: a JSON document or JSON-lines file saved with one imports every record",
      () =>
        Effect.gen(function* () {
          const url = yield* TestDatabaseUrl
          const write = yield* scratchFiles
          const record = (id: string) =>
            JSON.stringify({
              source: "demo",
              source_id: id,
              title: "Reparații drumuri comunale",
              cpv_codes: ["45233142-6"],
              contracting_authority: { name: "Comuna Florești", county: "Cluj" },
              publish_date: "2026-11-20T08:00:00Z"
            })
          const bom = "\uFEFF"
          const document = write("bom.json", Buffer.from(`${bom}[${record("BOM-1")}]`))
          const lines = write("bom.jsonl", Buffer.from(`${bom}${record("BOM-2")}\n${record("BOM-3")}\n`))
          const runs = yield* Effect.all([importTenders(url, [document]), importTenders(url, [lines])], {
            concurrency: 2
          })
          expect(summaryOf(runs[0]!)).toMatchObject({ imported: 1, skipped: 0 })
          expect(summaryOf(runs[1]!)).toMatchObject({ imported: 2, skipped: 0 })
          const stored = (yield* storedTenders).filter((t) => t.source_notice_id.startsWith("BOM-"))
          expect(stored.map((t) => t.source_notice_id)).toEqual(["BOM-1", "BOM-2", "BOM-3"])
        }).pipe(Effect.scoped),
      CLI_TIMEOUT
    )
  }
)
