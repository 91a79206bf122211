import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { client, query, rescoreJobs, runRescores, type SeededAccount, seedAccount, signIn } from "./fixtures.js"

/**
 * Feedback (issue 21) on the real server and PostgreSQL: a mark moves the company's scores of the
 * marked tender's CPV class on the next rescore, is named in the cpv reason, and its removal gives
 * the scores back; another account's company or an unscored tender is a 404 and writes nothing.
 */

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

const unique = () => randomBytes(4).toString("hex")

interface Scenario {
  readonly account: SeededAccount
  readonly api: ReturnType<typeof client>
  /** Road works (CPV class 4523) and road design (class 7132), all naming the watched keyword. */
  readonly works: ReadonlyArray<string>
  readonly design: ReadonlyArray<string>
}

/** An account whose company watches a word, and tenders of two CPV classes containing it, scored. */
const scenario = async (options: { readonly watchedCpv?: string } = {}): Promise<Scenario> => {
  const account = await seedAccount(server)
  const api = client(server, (await signIn(server, account)).accessToken)
  const word = `drumx${unique()}`
  const ids = await server.run(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE companies SET description = ${`asfaltare ${word}`} WHERE id = ${account.companyId}`
      yield* sql`INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords)
                 VALUES (${account.tenantId}, ${account.companyId}, 'W',
                         ${options.watchedCpv === undefined ? [] : [options.watchedCpv]}::char(10)[], ${[word]}::text[])`
      const [authority] = yield* sql<{ id: string }>`
        INSERT INTO contracting_authorities (name, normalized_name) VALUES (${`Primaria ${word}`}, ${`primaria ${word}`})
        RETURNING id`
      const tender = (title: string, cpv: string) =>
        Effect.map(
          sql<{ id: string }>`
            INSERT INTO tenders (source, source_notice_id, notice_type, title, description, main_cpv, authority_id,
                                 estimated_value_ron, publish_date, deadline, source_url)
            VALUES ('test', ${unique()}, 'contract', ${title}, '', ${cpv}, ${authority!.id}, 500000, now(),
                    now() + interval '30 days', 'https://example.test/n')
            RETURNING id`,
          (rows) => rows[0]!.id
        )
      const works = yield* Effect.forEach(["Alba", "Bihor", "Cluj", "Dolj"], (place) =>
        tender(`Asfaltare ${word} comunal ${place}`, "45233140-2")
      )
      const design = yield* Effect.forEach(["Alba", "Bihor", "Cluj", "Dolj"], (place) =>
        tender(`Proiectare ${word} comunal ${place}`, "71322000-1")
      )
      yield* (yield* ScoringService).scoreTenders([...works, ...design], { isNew: [] })
      return { works, design }
    }).pipe(Effect.orDie)
  )
  return { account, api, ...ids }
}

const rescore = (companyId: string) =>
  server.run(Effect.flatMap(ScoringService, (scoring) => scoring.rescoreCompany(companyId)))

/** The company's stored scores by tender: overall score and the five factor columns. */
const scoresOf = async (companyId: string) => {
  const rows = await query<{ tender_id: string; row: string }>(
    server,
    `SELECT tender_id, (overall_score, overall_confidence, verdict, score_semantic, score_keyword, score_cpv, score_value_fit, score_historical,
                        cpv_type)::text AS row
     FROM tender_scores WHERE company_id = $1 ORDER BY tender_id`,
    [companyId]
  )
  return new Map(rows.map((r) => [r.tender_id, r.row]))
}

const overall = async (companyId: string) => {
  const rows = await query<{ tender_id: string; overall_score: number }>(
    server,
    "SELECT tender_id, overall_score FROM tender_scores WHERE company_id = $1",
    [companyId]
  )
  return new Map(rows.map((r) => [r.tender_id, r.overall_score]))
}

/** The app's list order (score desc, publish date desc, tender id). */
const ranking = async (api: Scenario["api"], companyId: string) =>
  ((await api.get(`/api/v1/app/companies/${companyId}/tenders?limit=100`)).body.data as Array<{ id: string }>).map(
    (t) => t.id
  )

const feedbackPath = (companyId: string, tenderId: string) =>
  `/api/v1/app/companies/${companyId}/tenders/${tenderId}/feedback`

const put = (token: string, path: string, body: unknown) =>
  request(`${server.baseUrl}${path}`, { method: "PUT", token, body })

describe("feedback moves the company's ranking on the next rescore, and undo gives it back", () => {
  it("relevant boosts the marked class, not relevant dampens it, reasons name the marks, undo restores", async () => {
    const s = await scenario()
    const token = (await signIn(server, s.account)).accessToken
    const companyId = s.account.companyId
    const before = await scoresOf(companyId)
    const beforeOverall = await overall(companyId)
    expect(before.size).toBe(8)
    // Without feedback the road works rank above the road design (the description names asfaltare).
    const beforeRanking = await ranking(s.api, companyId)
    expect(beforeRanking.indexOf(s.design[2]!)).toBeGreaterThan(beforeRanking.indexOf(s.works[0]!))

    await runRescores(server, companyId)
    const jobs = await rescoreJobs(server, companyId)
    const marked = await put(token, feedbackPath(companyId, s.design[0]!), { relevant: true })
    expect(marked.status).toBe(200)
    expect(marked.body.data).toEqual({
      companyId,
      tenderId: s.design[0],
      relevant: true,
      markedAt: expect.stringMatching(/Z$/)
    })
    expect(await rescoreJobs(server, companyId)).toBe(jobs + 1)
    // Nothing moves before the rescore runs.
    expect(await scoresOf(companyId)).toEqual(before)

    await put(token, feedbackPath(companyId, s.design[1]!), { relevant: true })
    await put(token, feedbackPath(companyId, s.works[0]!), { relevant: false })
    await rescore(companyId)
    const after = await overall(companyId)
    // Two relevant marks in class 7132: +0.2 on the cpv factor (weight 0.3), 6 points; one not relevant
    // mark in class 4523: -0.1, but the cpv factor of those tenders is already 0.
    for (const id of s.design) expect(after.get(id)).toBe(beforeOverall.get(id)! + 6)
    for (const id of s.works) expect(after.get(id)).toBe(beforeOverall.get(id))
    const afterRanking = await ranking(s.api, companyId)
    expect(afterRanking.indexOf(s.design[2]!)).toBeLessThan(afterRanking.indexOf(s.works[0]!))

    const detail = await s.api.get(`/api/v1/app/companies/${companyId}/tenders/${s.design[2]}`)
    expect(detail.body.data.breakdown.factors.cpv.reason).toContain(
      "ați marcat 2 licitații din clasa CPV 7132 ca relevante"
    )
    const works = await s.api.get(`/api/v1/app/companies/${companyId}/tenders/${s.works[1]}`)
    expect(works.body.data.breakdown.factors.cpv.reason).toContain(
      "ați marcat o licitație din clasa CPV 4523 ca nerelevantă"
    )
    // The five factor keys of spec 2.3 stay as they are.
    expect(Object.keys(detail.body.data.breakdown.factors).sort()).toEqual(
      ["cpv", "historical", "keyword", "semantic", "valueFit"].sort()
    )

    const list = await s.api.get(`/api/v1/app/companies/${companyId}/feedback`)
    expect(list.status).toBe(200)
    expect(list.body.data.map((m: { tenderId: string; relevant: boolean }) => [m.tenderId, m.relevant]).sort()).toEqual(
      [
        [s.design[0], true],
        [s.design[1], true],
        [s.works[0], false]
      ].sort()
    )

    // Undo: every mark removed, the next rescore gives back exactly the scores without feedback.
    for (const id of [s.design[0]!, s.design[1]!, s.works[0]!]) {
      expect((await s.api.delete(feedbackPath(companyId, id))).status).toBe(204)
    }
    // Undoing again is fine (idempotent) and queues nothing more.
    await runRescores(server, companyId)
    const queued = await rescoreJobs(server, companyId)
    expect((await s.api.delete(feedbackPath(companyId, s.design[0]!))).status).toBe(204)
    expect(await rescoreJobs(server, companyId)).toBe(queued)
    await rescore(companyId)
    expect(await scoresOf(companyId)).toEqual(before)
    expect(await ranking(s.api, companyId)).toEqual(beforeRanking)
  })

  it("marks are bounded: four marks in one class move it by 9 points at most, either way", async () => {
    // The road works lie in the watched division (cpv factor 0.91: three levels below it, tsm-1.7.0),
    // the design in none (0).
    const s = await scenario({ watchedCpv: "45000000-7" })
    const token = (await signIn(server, s.account)).accessToken
    const companyId = s.account.companyId
    await rescore(companyId)
    const beforeOverall = await overall(companyId)
    for (const id of s.design) await put(token, feedbackPath(companyId, id), { relevant: true })
    for (const id of s.works) await put(token, feedbackPath(companyId, id), { relevant: false })
    await rescore(companyId)
    const after = await overall(companyId)
    for (const id of s.design) expect(after.get(id)).toBe(beforeOverall.get(id)! + 9)
    for (const id of s.works) expect(after.get(id)).toBe(beforeOverall.get(id)! - 9)
    const detail = await s.api.get(`/api/v1/app/companies/${companyId}/tenders/${s.works[0]}`)
    expect(detail.body.data.breakdown.factors.cpv).toMatchObject({ score: 0.61, cpvType: "primary" })
    expect(detail.body.data.breakdown.factors.cpv.reason).toBe(
      "codul CPV principal 45233140-2 se află în diviziunea 45, pe care o urmăriți; ați marcat 4 licitații din clasa CPV 4523 ca nerelevante"
    )
  })
})

describe("a deactivated company", () => {
  it("keeps its marks without rescoring (its scores stay as they are) until it is reactivated", async () => {
    const s = await scenario()
    const token = (await signIn(server, s.account)).accessToken
    const companyId = s.account.companyId
    expect((await s.api.delete(`/api/v1/companies/${companyId}`)).status).toBe(200)
    await runRescores(server, companyId)
    const jobs = await rescoreJobs(server, companyId)
    expect((await put(token, feedbackPath(companyId, s.design[0]!), { relevant: true })).status).toBe(200)
    expect((await s.api.delete(feedbackPath(companyId, s.design[0]!))).status).toBe(204)
    expect((await put(token, feedbackPath(companyId, s.design[1]!), { relevant: true })).status).toBe(200)
    expect(await rescoreJobs(server, companyId)).toBe(jobs)
    expect((await s.api.patch(`/api/v1/companies/${companyId}`, { active: true })).status).toBe(200)
    expect(await rescoreJobs(server, companyId)).toBe(jobs + 1)
  })
})

describe("tenant isolation", () => {
  it("concurrent marks of two tenants write only their own companies' marks and move only their own scores", async () => {
    const a = await scenario()
    const b = await scenario()
    const tokenA = (await signIn(server, a.account)).accessToken
    const tokenB = (await signIn(server, b.account)).accessToken
    // Baselines on the current corpus (B's tenders joined it after A was scored).
    await rescore(a.account.companyId)
    await rescore(b.account.companyId)
    const beforeB = await scoresOf(b.account.companyId)
    const beforeA = await overall(a.account.companyId)
    await runRescores(server, b.account.companyId)
    const jobsB = await rescoreJobs(server, b.account.companyId)
    const answers = await Promise.all([
      ...a.design.map((id) => put(tokenA, feedbackPath(a.account.companyId, id), { relevant: true })),
      // Each tenant tries the other's company, with the other's tenders and with its own.
      ...b.design.map((id) => put(tokenA, feedbackPath(b.account.companyId, id), { relevant: false })),
      ...a.design.map((id) => put(tokenB, feedbackPath(a.account.companyId, id), { relevant: false })),
      // A's company with B's tenders (scored for B, not for A's company).
      ...b.works.map((id) => put(tokenB, feedbackPath(a.account.companyId, id), { relevant: false })),
      ...b.works.map((id) => put(tokenB, feedbackPath(b.account.companyId, id), { relevant: false })),
      ...a.works.map((id) =>
        request(`${server.baseUrl}${feedbackPath(b.account.companyId, id)}`, { method: "DELETE", token: tokenA })
      )
    ])
    const statuses = answers.map((r) => r.status)
    expect(statuses).toEqual([
      ...Array(4).fill(200),
      ...Array(12).fill(404),
      ...Array(4).fill(200),
      ...Array(4).fill(404)
    ])
    for (const refused of answers.filter((r) => r.status === 404)) {
      expect(refused.body).toMatchObject({ statusCode: 404, code: "NOT_FOUND" })
    }
    const rows = await query<{ company_id: string; tender_id: string; tenant_id: string; relevant: boolean }>(
      server,
      "SELECT company_id, tender_id, tenant_id, relevant FROM tender_feedback WHERE company_id = ANY($1::uuid[])",
      [[a.account.companyId, b.account.companyId]]
    )
    expect(
      rows.filter((r) => r.company_id === a.account.companyId).map((r) => [r.tender_id, r.relevant, r.tenant_id])
    ).toEqual(expect.arrayContaining(a.design.map((id) => [id, true, a.account.tenantId])))
    expect(rows.filter((r) => r.company_id === a.account.companyId)).toHaveLength(4)
    expect(
      rows
        .filter((r) => r.company_id === b.account.companyId)
        .map((r) => [r.tender_id, r.tenant_id])
        .sort()
    ).toEqual(b.works.map((id) => [id, b.account.tenantId]).sort())
    // B's own marks (4, at once) queued its rescore, one for all; A's refused attempts queued none for B.
    expect(await rescoreJobs(server, b.account.companyId)).toBe(jobsB + 1)
    // B's own scores: its not relevant marks on road works only (cpv factor already 0): unchanged.
    await rescore(a.account.companyId)
    await rescore(b.account.companyId)
    // A's relevant marks are in class 7132, as are B's own design tenders: B's scores do not move.
    const afterB = await scoresOf(b.account.companyId)
    for (const [tenderId, row] of beforeB) expect(afterB.get(tenderId)).toBe(row)
    const afterA = await overall(a.account.companyId)
    for (const id of a.design) expect(afterA.get(id)).toBe(beforeA.get(id)! + 9)
    // A's list from B's token is a 404, and B cannot read A's marks.
    expect((await client(server, tokenB).get(`/api/v1/app/companies/${a.account.companyId}/feedback`)).status).toBe(404)
  })
})

describe("validation: 400 or 404 with the uniform error body, nothing written", () => {
  it("refuses malformed bodies and ids, unscored tenders and unknown companies", async () => {
    const s = await scenario()
    const token = (await signIn(server, s.account)).accessToken
    const companyId = s.account.companyId
    await runRescores(server, companyId)
    const jobs = await rescoreJobs(server, companyId)
    const path = feedbackPath(companyId, s.design[0]!)
    for (const body of [{}, { relevant: "yes" }, { relevant: null }, { relevant: 1 }, [], "not json", "{"]) {
      const answer = await put(token, path, body)
      expect(answer.status, JSON.stringify(body)).toBe(400)
      expect(answer.body).toMatchObject({ statusCode: 400, code: "VALIDATION_ERROR", message: expect.any(String) })
    }
    const noBody = await request(`${server.baseUrl}${path}`, { method: "PUT", token })
    expect(noBody.status).toBe(400)
    expect(noBody.body.code).toBe("VALIDATION_ERROR")
    for (const bad of [feedbackPath("not-a-uuid", s.design[0]!), feedbackPath(companyId, "x")]) {
      const answer = await put(token, bad, { relevant: true })
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("VALIDATION_ERROR")
    }
    // A tender the company has no score for (a fresh one), and an unknown company.
    const [unscored] = await query<{ id: string }>(
      server,
      `INSERT INTO tenders (source, source_notice_id, title, main_cpv, authority_id, publish_date)
       SELECT 'test', $1, 'Nescorat', '45233140-2', authority_id, now() FROM tenders WHERE id = $2 RETURNING id`,
      [unique(), s.design[0]]
    )
    for (const missing of [
      feedbackPath(companyId, unscored!.id),
      feedbackPath("00000000-0000-4000-8000-000000000000", s.design[0]!)
    ]) {
      const answer = await put(token, missing, { relevant: true })
      expect(answer.status).toBe(404)
      expect(answer.body).toMatchObject({ statusCode: 404, code: "NOT_FOUND" })
      expect((await s.api.delete(missing)).status).toBe(404)
    }
    expect((await s.api.get("/api/v1/app/companies/00000000-0000-4000-8000-000000000000/feedback")).body.code).toBe(
      "NOT_FOUND"
    )
    // Without a token: 401.
    expect((await request(`${server.baseUrl}${path}`, { method: "PUT", body: { relevant: true } })).status).toBe(401)
    const [written] = await query<{ n: number }>(
      server,
      "SELECT count(*)::int AS n FROM tender_feedback WHERE company_id = $1",
      [companyId]
    )
    expect(written!.n).toBe(0)
    expect(await rescoreJobs(server, companyId)).toBe(jobs)
  })
})
