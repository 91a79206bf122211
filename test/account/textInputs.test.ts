import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { keywordAnchor } from "../../src/domain/scoring/Text.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { client, PASSWORD, query, type SeededAccount, seedAccount, signIn } from "./fixtures.js"

describe("text fields refuse NUL characters (PostgreSQL text cannot hold U+0000)", () => {
  let server: TestServer
  let account: SeededAccount
  let api: ReturnType<typeof client>
  let watchlistId: string
  beforeAll(async () => {
    server = await startTestServer()
    account = await seedAccount(server, "consultant")
    api = client(server, (await signIn(server, account)).accessToken)
    watchlistId = (await api.post("/api/v1/watchlists", { name: "Roads" })).body.data.id
  })
  afterAll(() => server.close())

  it("every family answers 400 VALIDATION_ERROR naming the field, and stores nothing", async () => {
    const companyUrl = `/api/v1/companies/${account.companyId}`
    const cases = [
      ["post", "/api/v1/auth/login", { email: "a\u0000@x.ro", password: PASSWORD }, "email"],
      ["post", "/api/v1/auth/login", { email: account.email, password: "p\u0000" }, "password"],
      ["post", "/api/v1/watchlists", { name: "Dru\u0000muri" }, "name"],
      ["post", "/api/v1/watchlists", { name: "Ok", keywords: ["asfalt", "p\u0000od"] }, "keywords.1"],
      ["patch", `/api/v1/watchlists/${watchlistId}`, { name: "R\u0000" }, "name"],
      ["patch", companyUrl, { name: "Alfa\u0000" }, "name"],
      ["patch", companyUrl, { description: "\u0000" }, "description"],
      ["post", "/api/v1/settings/api-keys", { name: "ci\u0000" }, "name"]
    ] as const
    for (const [method, url, body, path] of cases) {
      const response = await api[method](url, body)
      const label = `${method} ${url} ${path}`
      expect(response.status, label).toBe(400)
      expect(response.body, label).toMatchObject({ statusCode: 400, code: "VALIDATION_ERROR" })
      expect(response.body.details[0], label).toEqual({ path, message: "must not contain NUL characters (U+0000)" })
    }
    const [counts] = await query<{ watchlists: number; keys: number; companies: number }>(
      server,
      `SELECT (SELECT count(*)::int FROM watchlists WHERE tenant_id = $1) AS watchlists,
              (SELECT count(*)::int FROM api_keys WHERE tenant_id = $1) AS keys,
              (SELECT count(*)::int FROM companies WHERE tenant_id = $1 AND description = 'Construcții drumuri') AS companies`,
      [account.tenantId]
    )
    expect(counts).toEqual({ watchlists: 1, keys: 0, companies: 1 })
    expect((await api.get("/api/v1/watchlists")).body.data[0].name).toBe("Roads")
    const login = await client(server).post("/api/v1/auth/login", { email: account.email, password: PASSWORD })
    expect(login.status).toBe(200)
  })

  it("a refresh token with a NUL is simply not well-formed: 401 REFRESH_TOKEN_INVALID", async () => {
    const response = await client(server).post("/api/v1/auth/refresh", { refreshToken: `rt_${"A".repeat(42)}\u0000` })
    expect(response.status).toBe(401)
    expect(response.body.code).toBe("REFRESH_TOKEN_INVALID")
  })

  it("lengths count characters (code points): 200 emoji are a valid name, 201 are not", async () => {
    const emoji = "\u{1F600}"
    const ok = await api.post("/api/v1/watchlists", { name: emoji.repeat(200) })
    expect(ok.status).toBe(201)
    expect(ok.body.data.name).toBe(emoji.repeat(200))
    const long = await api.post("/api/v1/watchlists", { name: emoji.repeat(201) })
    expect(long.status).toBe(400)
    expect(long.body.details[0]).toEqual({ path: "name", message: "must be at most 200 characters" })
    await api.delete(`/api/v1/watchlists/${ok.body.data.id}`)
  })

  it("a body that is not JSON (a form, multipart, text) is 415 UNSUPPORTED_MEDIA_TYPE and writes nothing", async () => {
    const { accessToken } = await signIn(server, account)
    const send = (contentType: string, body: string) =>
      fetch(`${server.baseUrl}/api/v1/watchlists`, {
        method: "POST",
        headers: { authorization: `Bearer ${accessToken}`, "content-type": contentType },
        body
      })
    const before = (await api.get("/api/v1/watchlists")).body.data.length
    for (const [contentType, body] of [
      ["application/x-www-form-urlencoded", "name=Form"],
      [
        "multipart/form-data; boundary=x",
        '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nMulti\r\n--x--\r\n'
      ],
      ["text/plain", '{"name":"Text"}'],
      // Types that merely contain "application/json", and JSON in an encoding other than UTF-8.
      ["application/json-patch+json", '[{"op":"add","path":"/name","value":"Patch"}]'],
      ["application/jsonx", '{"name":"Jsonx"}'],
      ["application/json; charset=utf-16", '{"name":"Utf16"}'],
      ["application/json; charset=iso-8859-2", '{"name":"Latin2"}']
    ]) {
      const answer = await send(contentType!, body!)
      expect(answer.status, contentType).toBe(415)
      expect(await answer.json(), contentType).toMatchObject({ statusCode: 415, code: "UNSUPPORTED_MEDIA_TYPE" })
    }
    expect((await api.get("/api/v1/watchlists")).body.data.length).toBe(before)
    // JSON with parameters is JSON.
    for (const contentType of ["application/json; charset=utf-8", 'Application/JSON; Charset="UTF-8"']) {
      const json = await send(contentType, '{"name":"Json"}')
      expect(json.status, contentType).toBe(201)
    }
  })
})

describe("text typed with combining marks (NFD) is stored composed (NFC)", () => {
  let server: TestServer
  let account: SeededAccount
  let api: ReturnType<typeof client>
  beforeAll(async () => {
    server = await startTestServer()
    account = await seedAccount(server, "consultant")
    api = client(server, (await signIn(server, account)).accessToken)
  })
  afterAll(() => server.close())

  // "întreținere drumuri" as some keyboards and PDFs give it: i + U+0302, t + U+0326.
  const decomposed = "întreținere drumuri".normalize("NFD")

  it("a keyword and a description: stored as one character each, with the candidate keys the scorer's fold gives", async () => {
    expect(decomposed).not.toBe("întreținere drumuri")
    const created = await api.post("/api/v1/watchlists", { name: "Drumuri", keywords: [decomposed] })
    expect(created.status).toBe(201)
    expect(created.body.data.keywords).toEqual(["întreținere drumuri"])
    const patched = await api.patch(`/api/v1/companies/${account.companyId}`, { description: decomposed })
    expect(patched.status).toBe(200)
    const [stored] = await query<{ anchors: Array<string>; keys: Array<string> }>(
      server,
      `SELECT w.keyword_anchors AS anchors, c.description_keys AS keys
       FROM watchlists w JOIN companies c ON c.id = w.company_id WHERE w.id = $1`,
      [created.body.data.id]
    )
    expect(stored).toEqual({ anchors: [keywordAnchor("întreținere drumuri")], keys: ["drumu", "intre"] })
  })
})

describe("names and labels are one line (they are written into the digest, CSV cells, logs, the PDF)", () => {
  let server: TestServer
  let account: SeededAccount
  let api: ReturnType<typeof client>
  let watchlistId: string
  beforeAll(async () => {
    server = await startTestServer()
    account = await seedAccount(server, "consultant")
    api = client(server, (await signIn(server, account)).accessToken)
    watchlistId = (await api.post("/api/v1/watchlists", { name: "Roads" })).body.data.id
  })
  afterAll(() => server.close())

  const ONE_LINE = "must not contain line breaks, tabs or other control characters"
  const NUL = "must not contain NUL characters (U+0000)"

  it("a line break, a tab, a C1 control or U+2028 inside a name or keyword is 400 VALIDATION_ERROR naming the field; nothing is stored", async () => {
    const fields = (text: string) =>
      [
        ["post", "/api/v1/watchlists", { name: text }, "name"],
        ["post", "/api/v1/watchlists", { name: "Ok", keywords: ["asfalt", text] }, "keywords.1"],
        ["patch", `/api/v1/watchlists/${watchlistId}`, { name: text }, "name"],
        ["patch", `/api/v1/watchlists/${watchlistId}`, { keywords: [text] }, "keywords.0"],
        ["post", "/api/v1/companies", { name: text }, "name"],
        ["patch", `/api/v1/companies/${account.companyId}`, { name: text }, "name"],
        ["post", "/api/v1/settings/api-keys", { name: text }, "name"]
      ] as const
    for (const [text, message] of [
      ["Alfa\nBeta", ONE_LINE],
      ["Alfa\r\n== Beta ==", ONE_LINE],
      ["Alfa\tBeta", ONE_LINE],
      ["Alfa\u0085Beta", ONE_LINE],
      ["Alfa\u2028Beta", ONE_LINE],
      ["Alfa\u2029Beta", ONE_LINE],
      ["Alfa\u001bBeta", ONE_LINE],
      ["Alfa\u0000Beta", NUL]
    ] as const) {
      for (const [method, url, body, path] of fields(text)) {
        const response = await api[method](url, body)
        const label = `${method} ${url} ${path} ${JSON.stringify(text)}`
        expect(response.status, label).toBe(400)
        expect(response.body, label).toMatchObject({ statusCode: 400, code: "VALIDATION_ERROR" })
        expect(response.body.details, label).toEqual([{ path, message }])
      }
    }
    const [counts] = await query<{ watchlists: number; keys: number; companies: number }>(
      server,
      `SELECT (SELECT count(*)::int FROM watchlists WHERE tenant_id = $1) AS watchlists,
              (SELECT count(*)::int FROM api_keys WHERE tenant_id = $1) AS keys,
              (SELECT count(*)::int FROM companies WHERE tenant_id = $1) AS companies`,
      [account.tenantId]
    )
    expect(counts).toEqual({ watchlists: 1, keys: 0, companies: 1 })
  })

  it("a name with diacritics, punctuation and emoji passes; a line break around it is trimmed; a description keeps its line breaks", async () => {
    const name = "Școala Gimnazială „Ion Creangă” Târgu-Neamț — lot 2 ✓"
    const watchlist = await api.post("/api/v1/watchlists", { name: `${name}\n`, keywords: ["întreținere drumuri"] })
    expect(watchlist.status).toBe(201)
    expect(watchlist.body.data).toMatchObject({ name, keywords: ["întreținere drumuri"] })
    const company = await api.post("/api/v1/companies", {
      name: `\r\n${name}`,
      description: "Rânduri:\n- drumuri\n- poduri"
    })
    expect(company.status).toBe(201)
    expect(company.body.data).toMatchObject({ name, description: "Rânduri:\n- drumuri\n- poduri" })
    const key = await api.post("/api/v1/settings/api-keys", { name: "Integrare ERP (producție)" })
    expect(key.status).toBe(201)
    expect(key.body.data.name).toBe("Integrare ERP (producție)")
  })
})
