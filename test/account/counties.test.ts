import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { client, query, rescoreJobs, runRescores, type SeededAccount, seedAccount, signIn } from "./fixtures.js"

/** Place (issue 21): a company's counties and a watchlist's county filter, extension fields of the account API. */
describe("counties of companies and watchlists (extension)", () => {
  let server: TestServer
  let account: SeededAccount
  let api: ReturnType<typeof client>
  beforeAll(async () => {
    server = await startTestServer()
  })
  beforeEach(async () => {
    account = await seedAccount(server, "consultant")
    api = client(server, (await signIn(server, account)).accessToken)
  })
  afterAll(() => server.close())

  const patch = (body: unknown) => api.patch(`/api/v1/companies/${account.companyId}`, body)

  it("PATCH counties round trip: stored in Romanian spelling, deduplicated, read back, [] clears; a change rescores", async () => {
    await runRescores(server, account.companyId)
    const before = await rescoreJobs(server, account.companyId)
    const { status, body } = await patch({ counties: ["gorj", "Județul Vâlcea", "GORJ", "Municipiul Bucuresti"] })
    expect(status).toBe(200)
    expect(body.data.counties).toEqual(["Gorj", "Vâlcea", "București"])
    expect(body.data.inferredCounties).toEqual([])
    expect(await rescoreJobs(server, account.companyId)).toBe(before + 1)
    expect((await api.get(`/api/v1/companies/${account.companyId}`)).body.data.counties).toEqual([
      "Gorj",
      "Vâlcea",
      "București"
    ])
    const listed = (await api.get("/api/v1/companies")).body.data.find((c: any) => c.id === account.companyId)
    expect(listed.counties).toEqual(["Gorj", "Vâlcea", "București"])
    // The same counties again: nothing to rescore; another field leaves them as they are.
    await runRescores(server, account.companyId)
    await patch({ counties: ["Gorj", "Vâlcea", "București"] })
    expect((await patch({ name: "Alfa SRL" })).body.data.counties).toEqual(["Gorj", "Vâlcea", "București"])
    expect(await rescoreJobs(server, account.companyId)).toBe(before + 1)
    const cleared = await patch({ counties: [] })
    expect(cleared.body.data.counties).toEqual([])
    const [row] = await query<{ counties: unknown }>(server, "SELECT counties FROM companies WHERE id = $1", [
      account.companyId
    ])
    expect(row!.counties).toBeNull()
  })

  it("PATCH validation: 400 VALIDATION_ERROR naming the field for a county that is not one, or not a list", async () => {
    for (const [body, path] of [
      [{ counties: ["Narnia"] }, "counties.0"],
      [{ counties: ["Dolj", ""] }, "counties.1"],
      [{ counties: "Dolj" }, "counties"],
      [{ counties: [5] }, "counties.0"],
      [{ counties: null }, "counties"],
      [{ counties: Array.from({ length: 43 }, () => "Dolj") }, "counties"]
    ] as const) {
      const response = await patch(body)
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(response.body.code).toBe("VALIDATION_ERROR")
      expect(response.body.details[0].path, JSON.stringify(body)).toBe(path)
    }
    expect((await api.get(`/api/v1/companies/${account.companyId}`)).body.data.counties).toEqual([])
  })

  it("inferredCounties: the counties of the authorities whose awards name the company's fiscal code", async () => {
    await patch({ fiscalCode: "RO 9988776" })
    const authority = async (county: string) =>
      (
        await query<{ id: string }>(
          server,
          `INSERT INTO contracting_authorities (name, normalized_name, county) VALUES ($1, $2, $3) RETURNING id`,
          [`Primăria ${county} ${Math.random()}`, `primaria ${county} ${Math.random()}`, county]
        )
      )[0]!.id
    const award = async (authorityId: string) =>
      query(
        server,
        `INSERT INTO tenders (source, source_notice_id, notice_type, title, main_cpv, authority_id, publish_date,
                              winner_fiscal_codes)
         VALUES ('test', $1, 'award', 'Drum', '45233140-2', $2, now(), '{9988776}')`,
        [`a-${Math.random()}`, authorityId]
      )
    const gorj = await authority("GORJ")
    for (let i = 0; i < 4; i++) await award(gorj)
    await award(await authority("Dolj"))
    for (let i = 0; i < 5; i++) await award(await authority("Iași"))
    const { body } = await api.get(`/api/v1/companies/${account.companyId}`)
    expect(body.data.counties).toEqual([])
    // Iași 5 of 10, Gorj 4 (stored upper case), Dolj 1: under 20% and under 3 awards.
    expect(body.data.inferredCounties).toEqual(["Iași", "Gorj"])
  })

  it("watchlists: counties on create and PATCH, read back, validated", async () => {
    const created = await api.post("/api/v1/watchlists", { name: "Sud", counties: ["dolj", "Olt"] })
    expect(created.status).toBe(201)
    expect(created.body.data.counties).toEqual(["Dolj", "Olt"])
    expect((await api.post("/api/v1/watchlists", { name: "Oriunde" })).body.data.counties).toEqual([])
    const id = created.body.data.id
    const patched = await api.patch(`/api/v1/watchlists/${id}`, { counties: ["Gorj"] })
    expect(patched.body.data.counties).toEqual(["Gorj"])
    expect((await api.patch(`/api/v1/watchlists/${id}`, { name: "Sud-Vest" })).body.data.counties).toEqual(["Gorj"])
    const listed = (await api.get("/api/v1/watchlists")).body.data.find((w: any) => w.id === id)
    expect(listed.counties).toEqual(["Gorj"])
    const refused = await api.patch(`/api/v1/watchlists/${id}`, { counties: ["Gorj", "Mordor"] })
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ code: "VALIDATION_ERROR", details: [{ path: "counties.1" }] })
    expect((await api.post("/api/v1/watchlists", { name: "X", counties: "Dolj" })).status).toBe(400)
  })
})
