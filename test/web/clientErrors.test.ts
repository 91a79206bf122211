import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runApi } from "../../src/web/AppContext.js"
import { makeApiClient } from "../../src/web/api/client.js"
import { toAppError } from "../../src/web/api/errors.js"
import { t } from "../../src/web/strings.js"
import { type SeededAccount, seedAccount, signIn } from "../account/fixtures.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/**
 * The browser app's typed client (the same `Api`) against the real server, in Node: what it sends
 * for text as typed, and how a value it refuses to send is told to the consultant.
 */
describe("the browser app's API client", () => {
  let server: TestServer
  let account: SeededAccount
  let api: ReturnType<typeof makeApiClient>
  beforeAll(async () => {
    server = await startTestServer()
    account = await seedAccount(server, "consultant")
    const token = (await signIn(server, account)).accessToken
    api = makeApiClient(() => token, server.baseUrl)
  })
  afterAll(() => server.close())

  const failure = (call: Promise<unknown>) =>
    call.then(
      () => expect.unreachable("the call should have failed"),
      (error: unknown) => toAppError(error)
    )

  it("names typed with a trailing space are sent as typed and stored trimmed", async () => {
    const company = await runApi(
      api.companies.create({ payload: { name: "Acme Construct ", description: "", fiscalCode: null, counties: [] } })
    )
    expect(company.data.name).toBe("Acme Construct")
    const watchlist = await runApi(
      api.watchlists.create({ payload: { name: " Drumuri ", companyId: account.companyId } })
    )
    expect(watchlist.data.name).toBe("Drumuri")
    // Only blanks is still no name: the server's 400, naming the field.
    const blank = await failure(
      runApi(api.watchlists.create({ payload: { name: "   ", companyId: account.companyId } }))
    )
    expect(blank.code).toBe("VALIDATION_ERROR")
    expect(blank.message).toContain(t.fields.name)
  })

  it("a value the client refuses to send (an amount typed wrong, an authority that is no id) names its field", async () => {
    const amount = await failure(
      runApi(api.watchlists.create({ payload: { name: "X", minValue: Number.NaN, companyId: account.companyId } }))
    )
    const authority = await failure(
      runApi(
        api.watchlists.create({ payload: { name: "X", authorityId: "Primăria Cluj", companyId: account.companyId } })
      )
    )
    expect([amount.code, authority.code]).toEqual(["VALIDATION_ERROR", "VALIDATION_ERROR"])
    expect(amount.message).toContain(t.errors.invalidInput)
    expect(amount.message).toContain(t.fields.minValue)
    expect(authority.message).toContain(t.fields.authorityId)
  })

  it("what the app's forms can send wrong is told in Romanian, whether the server or the client refuses it", async () => {
    const companyId = account.companyId
    const refused = await Promise.all(
      [
        // Refused by the typed client before sending (its schema is the server's).
        runApi(api.companies.create({ payload: { name: "", description: "", fiscalCode: null, counties: [] } })),
        runApi(api.watchlists.create({ payload: { name: "x".repeat(201), companyId } })),
        runApi(api.watchlists.create({ payload: { name: "X", keywords: ["k".repeat(101)], companyId } })),
        runApi(api.watchlists.create({ payload: { name: "X", minValue: -1, companyId } })),
        runApi(api.settings.createApiKey({ payload: { name: "k".repeat(101) } })),
        runApi(
          api.webhookDashboard.createWebhook({
            payload: { url: "http://example.com/hook", secret: "s".repeat(40), events: ["tender.matched"] }
          })
        ),
        runApi(
          api.appReports.create({
            path: { companyId },
            headers: {},
            payload: { date_from: "2026-11-27", date_to: "2026-11-01", min_score: 50 }
          })
        ),
        // Refused by the server (a 400 VALIDATION_ERROR with `details`).
        runApi(api.companies.create({ payload: { name: "X", description: "", fiscalCode: "abc", counties: [] } })),
        runApi(api.companies.update({ path: { id: companyId }, payload: { name: "   " } })),
        runApi(api.watchlists.create({ payload: { name: "X", minValue: 10, maxValue: 5, companyId } })),
        runApi(api.watchlists.create({ payload: { name: "X", cpvCodes: ["99999999"], companyId } })),
        // A line break inside a name (the client's schema is the server's: refused before sending).
        runApi(api.watchlists.create({ payload: { name: "Drumuri\nPoduri", companyId } }))
      ].map(failure)
    )
    expect(refused.map((error) => error.message)).toEqual([
      "Datele trimise nu sunt valide. Denumire: completați câmpul.",
      "Datele trimise nu sunt valide. Denumire: cel mult 200 de caractere.",
      "Datele trimise nu sunt valide. Cuvinte cheie: cel mult 100 de caractere.",
      "Datele trimise nu sunt valide. Valoare minimă: cel puțin 0.",
      "Datele trimise nu sunt valide. Denumire: cel mult 100 de caractere.",
      "Datele trimise nu sunt valide. URL: adresa trebuie să înceapă cu https://.",
      "Datele trimise nu sunt valide. Până la: nu poate fi înaintea datei de început.",
      "Datele trimise nu sunt valide. Cod fiscal: un cod fiscal are 2-10 cifre, eventual precedate de RO.",
      "Datele trimise nu sunt valide. Denumire: completați câmpul.",
      "Datele trimise nu sunt valide. Valoare minimă: nu poate depăși valoarea maximă.",
      "Datele trimise nu sunt valide. Coduri CPV: codul 99999999 nu există în nomenclatorul CPV.",
      "Datele trimise nu sunt valide. Denumire: scrieți totul pe un singur rând, fără Enter sau Tab."
    ])
  })

  it("a PDF report's fields are named in Romanian, though its body keeps the key API's snake_case", async () => {
    const report = await failure(
      runApi(
        api.appReports.create({
          path: { companyId: account.companyId },
          headers: {},
          payload: { date_from: "2026-11-01", date_to: "2026-11-27", min_score: 101 }
        })
      )
    )
    expect(report.code).toBe("VALIDATION_ERROR")
    expect(report.message).toContain(`${t.fields.min_score}:`)
    expect(report.message).not.toContain("min_score")
  })
})
