import { execFile } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { Cause, Duration, Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CLI_LOCK_TIMEOUT, CliDatabaseLive } from "../../src/cli/CliDatabase.js"
import { DEMO_COMPANIES, DEMO_EMAIL, DEMO_PASSWORD } from "../../src/demo/DemoData.js"
import { readDemoNotices } from "../../src/demo/DemoNotices.js"
import { hashApiKey } from "../../src/domain/ApiKey.js"
import { contractKindOf } from "../../src/domain/scoring/CpvMatch.js"
import { verifyPassword } from "../../src/infra/auth/PasswordHasher.js"
import { type AppConfig, AppConfigLive, environmentConfig } from "../../src/infra/config/AppConfig.js"
import {
  BackgroundDatabaseLive,
  type DatabaseUrl,
  DatabaseUrlLive,
  RequestDatabaseLive
} from "../../src/infra/db/Database.js"
import { ReadPool } from "../../src/infra/db/PgPool.js"
import { TestDatabaseLive, TestDatabaseUrl } from "../support/TestDatabase.js"
import {
  expectJson,
  expectOneLineFailure,
  PROJECT_ROOT,
  type ProcessResult,
  runBundledCli,
  runCli,
  UUID_PATTERN
} from "./processes.js"

/** Every ops command, run as a real child process against this file's fresh database. */
describe("ops CLI", () => {
  const runtime = ManagedRuntime.make(TestDatabaseLive)
  let databaseUrl: string
  const cli = (...args: Array<string>) => runCli(databaseUrl, ...args)
  const query = <A extends object>(f: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
    runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie))
  const newTenant = async (plan = "consultant") =>
    expectJson(await cli("tenant", "create", "--name", "Acme", "--plan", plan)).tenantId as string

  beforeAll(async () => {
    databaseUrl = await runtime.runPromise(TestDatabaseUrl)
  })
  afterAll(() => runtime.dispose())

  it("migrate prints the files it applied (none on a migrated database)", async () => {
    expect(expectJson(await cli("migrate"))).toEqual({ applied: [] })
  })

  it("tenant create prints the new tenant id; an unknown plan is a one-line error", async () => {
    const [ok, badPlan, noName] = await Promise.all([
      cli("tenant", "create", "--name", "Birou Consultanță", "--plan", "activ"),
      cli("tenant", "create", "--name", "X", "--plan", "gold"),
      cli("tenant", "create", "--plan", "free")
    ])
    const { tenantId } = expectJson(ok)
    expect(tenantId).toMatch(UUID_PATTERN)
    expect(await query((sql) => sql`SELECT name, plan FROM tenants WHERE id = ${tenantId}`)).toEqual([
      { name: "Birou Consultanță", plan: "activ" }
    ])
    expect(expectOneLineFailure(badPlan)).toBe('--plan must be one of free, starter, activ, consultant, got "gold"')
    expect(expectOneLineFailure(noName)).toContain("--name")
  })

  it("tenant create stores the name trimmed and composed (NFC), as company names are; a blank, too long or multi-line name is a one-line error", async () => {
    // "Ș" and "ă" typed decomposed: "S" + U+0326, "a" + U+0306.
    const decomposed = " S\u0326tefa\u0306nescu Consult "
    const [ok, blank, long, twoLines] = await Promise.all([
      cli("tenant", "create", "--name", decomposed, "--plan", "free"),
      cli("tenant", "create", "--name", "   ", "--plan", "free"),
      cli("tenant", "create", "--name", "n".repeat(201), "--plan", "free"),
      cli("tenant", "create", "--name", "Acme\n== Alt client ==", "--plan", "free")
    ])
    const { tenantId } = expectJson(ok)
    expect(await query((sql) => sql`SELECT name FROM tenants WHERE id = ${tenantId}`)).toEqual([
      { name: "Ștefănescu Consult" }
    ])
    for (const [result, line] of [
      [blank, "--name must not be empty"],
      [long, "--name must be at most 200 characters"],
      [twoLines, "--name must not contain line breaks, tabs or other control characters"]
    ] as const) {
      expect(expectOneLineFailure(result)).toBe(line)
      expect(result.code).toBe(1)
    }
  })

  it("tenant list prints every tenant with its users and company count (how to find <tenantId>)", async () => {
    const tenantId = await newTenant("activ")
    expectJson(
      await cli("user", "create", "--tenant", tenantId, "--email", "lista@firma.ro", "--password", "parola-lunga")
    )
    const { tenants } = expectJson(await cli("tenant", "list"))
    const listed = tenants.find((tenant: { tenantId: string }) => tenant.tenantId === tenantId)
    expect(listed).toEqual({
      tenantId,
      name: "Acme",
      plan: "activ",
      createdAt: expect.stringMatching(/Z$/),
      users: ["lista@firma.ro"],
      companies: 0
    })
    const created = tenants.map((tenant: { createdAt: string }) => tenant.createdAt)
    expect(created).toEqual([...created].sort())
  })

  it("--help into a pipe is plain text: no ANSI colour codes", async () => {
    const help = await cli("--help")
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("USAGE")
    expect(help.stdout).toContain("tenant")
    expect(help.stdout).not.toContain("\u001b[")
    const usage = await cli("tenant", "bogus")
    expect(usage.code).not.toBe(0)
    expect(usage.stderr + usage.stdout).not.toContain("\u001b[")
  })

  it("user create prints the user id; a taken e-mail, an unknown tenant, a malformed id and a password login would refuse are one-line errors", async () => {
    const tenantId = await newTenant()
    const { userId } = expectJson(
      await cli("user", "create", "--tenant", tenantId, "--email", "Ana@Firma.ro", "--password", "parola-lunga")
    )
    expect(userId).toMatch(UUID_PATTERN)
    expect(await query((sql) => sql`SELECT email, tenant_id FROM users WHERE id = ${userId}`)).toEqual([
      { email: "ana@firma.ro", tenant_id: tenantId }
    ])
    const [taken, unknownTenant, malformed, longPassword, blankPassword] = await Promise.all([
      cli("user", "create", "--tenant", tenantId, "--email", "ana@firma.ro", "--password", "alta-parola"),
      cli(
        "user",
        "create",
        "--tenant",
        "00000000-0000-4000-8000-000000000000",
        "--email",
        "b@c.ro",
        "--password",
        "parola-lunga"
      ),
      cli("user", "create", "--tenant", "1; DROP TABLE users", "--email", "b@c.ro", "--password", "parola-lunga"),
      // Login reads at most 1,024 characters (src/http/auth/AuthApi.ts): a longer password locks its user out.
      cli("user", "create", "--tenant", tenantId, "--email", "lunga@firma.ro", "--password", "p".repeat(1025)),
      cli("user", "create", "--tenant", tenantId, "--email", "goala@firma.ro", "--password", " ".repeat(12))
    ])
    expect(expectOneLineFailure(taken)).toBe("A user with the e-mail ana@firma.ro already exists")
    expect(expectOneLineFailure(unknownTenant)).toBe("No tenant with id 00000000-0000-4000-8000-000000000000")
    expect(expectOneLineFailure(malformed)).toMatch(/^--tenant must be a UUID/)
    expect(expectOneLineFailure(longPassword)).toBe(
      "--password must have at most 1024 characters (the longest login accepts)"
    )
    expect(expectOneLineFailure(blankPassword)).toBe("--password must not be blank")
    expect(await query((sql) => sql`SELECT email FROM users WHERE tenant_id = ${tenantId}`)).toEqual([
      { email: "ana@firma.ro" }
    ])
  })

  it("user create takes the password from USER_PASSWORD, kept out of the command line (shell history, ps); it is checked as --password is", async () => {
    const tenantId = await newTenant()
    const withPassword = (email: string, password: string) =>
      runBundledCli(["user", "create", "--tenant", tenantId, "--email", email], {
        DATABASE_URL: databaseUrl,
        USER_PASSWORD: password
      })
    const [fromVariable, tooShort] = await Promise.all([
      withPassword("var@firma.ro", "parola din variabila"),
      withPassword("scurta@firma.ro", "scurta")
    ])
    const { userId } = expectJson(fromVariable)
    const [user] = await query<{ password_hash: string }>(
      (sql) => sql`SELECT password_hash FROM users WHERE id = ${userId}`
    )
    expect(await Effect.runPromise(verifyPassword(user!.password_hash, "parola din variabila"))).toBe(true)
    expect(expectOneLineFailure(tooShort)).toBe("--password must have at least 8 characters")
  })

  it("user create takes one e-mail address: a list, a display name, spaces or control characters are refused", async () => {
    const tenantId = await newTenant()
    // Each would be a send to more than one address (nodemailer reads an address list), or a header line.
    const refused = [
      "victim,evil@x.ro",
      "victim@firma.ro evil@x.ro",
      "Victim <evil@x.ro>",
      "victim;evil@x.ro",
      "victim@firma.ro\nBcc: evil@x.ro",
      "victim\u0001@firma.ro",
      "ana@firma"
    ]
    const results = await Promise.all(
      refused.map((email) =>
        cli("user", "create", "--tenant", tenantId, "--email", email, "--password", "parola-lunga")
      )
    )
    for (const result of results) {
      expect(expectOneLineFailure(result)).toBe(
        "--email must be one e-mail address (name@domain.ro), without spaces, commas, angle brackets or control characters"
      )
    }
    const { userId } = expectJson(
      await cli(
        "user",
        "create",
        "--tenant",
        tenantId,
        "--email",
        " Ion.Pop+licitatii@mail.firma.ro ",
        "--password",
        "parola-lunga"
      )
    )
    expect(await query((sql) => sql`SELECT id, email FROM users WHERE tenant_id = ${tenantId}`)).toEqual([
      { id: userId, email: "ion.pop+licitatii@mail.firma.ro" }
    ])
  })

  it("company create stores the normalised fiscal code; an invalid CUI is a one-line error", async () => {
    const tenantId = await newTenant()
    const [withCode, bare, badCode] = await Promise.all([
      cli(
        "company",
        "create",
        "--tenant",
        tenantId,
        "--name",
        "Drumuri SRL",
        "--description",
        "Asfaltări",
        "--fiscal-code",
        "RO 18547290"
      ),
      cli("company", "create", "--tenant", tenantId, "--name", "Fără Cod SRL"),
      cli("company", "create", "--tenant", tenantId, "--name", "Greșit SRL", "--fiscal-code", "RO12AB")
    ])
    const { companyId } = expectJson(withCode)
    expect(companyId).toMatch(UUID_PATTERN)
    expect(expectJson(bare).companyId).toMatch(UUID_PATTERN)
    expect(
      await query((sql) => sql`SELECT name, description, fiscal_code FROM companies WHERE id = ${companyId}`)
    ).toEqual([{ name: "Drumuri SRL", description: "Asfaltări", fiscal_code: "18547290" }])
    expect(expectOneLineFailure(badCode)).toMatch(/^--fiscal-code is not a Romanian fiscal code/)
    const [{ count }] = await query<{ count: number }>(
      (sql) => sql`SELECT count(*)::int AS count FROM companies WHERE tenant_id = ${tenantId}`
    )
    expect(count).toBe(2)
  })

  it("company create accepts every fiscal code the importer accepts (dotted, the mistyped R prefix)", async () => {
    const tenantId = await newTenant()
    const created = await Promise.all(
      [
        ["Puncte SRL", "22.505.268"],
        ["Prefix Scurt SRL", "R16445706"]
      ].map(([name, code]) => cli("company", "create", "--tenant", tenantId, "--name", name!, "--fiscal-code", code!))
    )
    const ids = created.map((result) => expectJson(result).companyId as string)
    const rows = await query<{ id: string; fiscal_code: string }>(
      (sql) => sql`SELECT id, fiscal_code FROM companies WHERE id = ANY(${ids}::uuid[])`
    )
    expect(new Map(rows.map((row) => [row.id, row.fiscal_code]))).toEqual(
      new Map([
        [ids[0], "22505268"],
        [ids[1], "16445706"]
      ])
    )
  })

  it("company create and update refuse what the account API refuses (a name over 200 characters or blank, a description over 10,000): one line, exit 1, nothing written", async () => {
    const tenantId = await newTenant()
    const { companyId } = expectJson(await cli("company", "create", "--tenant", tenantId, "--name", "Limite SRL"))
    const create = (...args: Array<string>) => cli("company", "create", "--tenant", tenantId, ...args)
    const update = (...args: Array<string>) => cli("company", "update", "--id", companyId, ...args)
    const [longName, blankName, longDescription, longNameUpdate, longDescriptionUpdate] = await Promise.all([
      create("--name", "n".repeat(201)),
      create("--name", "   "),
      create("--name", "Descriere SRL", "--description", "d".repeat(10_001)),
      update("--name", "n".repeat(201)),
      update("--description", "d".repeat(10_001))
    ])
    for (const [result, line] of [
      [longName, "--name must be at most 200 characters"],
      [blankName, "--name must not be empty"],
      [longDescription, "--description must be at most 10000 characters"],
      [longNameUpdate, "--name must be at most 200 characters"],
      [longDescriptionUpdate, "--description must be at most 10000 characters"]
    ] as const) {
      expect(expectOneLineFailure(result)).toBe(line)
      expect(result.code).toBe(1)
    }
    expect(await query((sql) => sql`SELECT name, description FROM companies WHERE tenant_id = ${tenantId}`)).toEqual([
      { name: "Limite SRL", description: "" }
    ])
    // Characters as the API counts them: 200 emoji are 200 characters (400 UTF-16 units).
    expect(expectJson(await create("--name", "😀".repeat(200))).companyId).toMatch(UUID_PATTERN)
  })

  it("company create and update store the name and description composed (NFC), as the account API does", async () => {
    const tenantId = await newTenant()
    // "ș" typed as "s" + U+0326 (some keyboards, text pasted from a PDF).
    const decomposed = "Construcții s\u0326i Instalat\u0326ii"
    const { companyId } = expectJson(
      await cli("company", "create", "--tenant", tenantId, "--name", decomposed, "--description", decomposed)
    )
    const stored = () => query((sql) => sql`SELECT name, description FROM companies WHERE id = ${companyId}`)
    const composedText = decomposed.normalize("NFC")
    expect(composedText).not.toBe(decomposed)
    expect(await stored()).toEqual([{ name: composedText, description: composedText }])
    expectJson(await cli("company", "update", "--id", companyId, "--name", `${decomposed} 2`))
    expect(await stored()).toEqual([{ name: `${composedText} 2`, description: composedText }])
  })

  it('company update --counties sets the counties it works in (names folded to the canonical ones), queues a rescore, and "" clears them', async () => {
    const tenantId = await newTenant()
    const { companyId } = expectJson(await cli("company", "create", "--tenant", tenantId, "--name", "Drumuri Vest SRL"))
    const rescores = () =>
      query<{ n: number }>(
        (sql) =>
          sql`SELECT count(*)::int AS n FROM jobs WHERE kind = 'company.rescore' AND payload->>'companyId' = ${companyId}`
      ).then(([row]) => row!.n)
    // The creation's rescore has run (a change while it is still queued joins it).
    await query(
      (sql) =>
        sql`UPDATE jobs SET status = 'done' WHERE kind = 'company.rescore' AND payload->>'companyId' = ${companyId}`
    )
    const before = await rescores()
    const set = expectJson(
      await cli("company", "update", "--id", companyId, "--counties", "cluj, Bihor,Cluj , bucuresti")
    )
    expect(set.counties).toEqual(["Cluj", "Bihor", "București"])
    expect(await query((sql) => sql`SELECT counties FROM companies WHERE id = ${companyId}`)).toEqual([
      { counties: ["Cluj", "Bihor", "București"] }
    ])
    expect(await rescores()).toBe(before + 1)

    const bad = await cli("company", "update", "--id", companyId, "--counties", "Cluj, Atlantis")
    expect(expectOneLineFailure(bad)).toMatch(/^--counties: "Atlantis" is not one of Romania's 41 counties/)
    expect(expectJson(await cli("company", "update", "--id", companyId, "--counties", "")).counties).toEqual([])
    expect(await query((sql) => sql`SELECT counties FROM companies WHERE id = ${companyId}`)).toEqual([
      { counties: null }
    ])
  })

  it("apikey create prints the key once (only its hash is stored); a fourth active key is refused", async () => {
    const tenantId = await newTenant()
    const created = (
      await Promise.all(
        ["ci", "erp", "bi"].map((name) => cli("apikey", "create", "--tenant", tenantId, "--name", name))
      )
    ).map(expectJson)
    for (const { keyId, key } of created) {
      expect(keyId).toMatch(UUID_PATTERN)
      expect(key).toMatch(/^svc_[0-9a-f]{64}$/)
      const [row] = await query<{ key_hash: Buffer; name: string }>(
        (sql) => sql`SELECT key_hash, name FROM api_keys WHERE id = ${keyId}`
      )
      expect(Buffer.compare(row!.key_hash, hashApiKey(key))).toBe(0)
    }
    expect(expectOneLineFailure(await cli("apikey", "create", "--tenant", tenantId))).toMatch(
      /already has 3 active API keys/
    )
  })

  it("apikey create refuses a tenant whose plan has no key API (as the settings API does): one line naming the plan, no key stored", async () => {
    const [tenant] = await query<{ id: string }>(
      (sql) => sql`INSERT INTO tenants (name, plan) VALUES ('Starter SRL', 'starter') RETURNING id`
    )
    expect(expectOneLineFailure(await cli("apikey", "create", "--tenant", tenant!.id))).toBe(
      "API keys are part of the consultant plan; the tenant is on the starter plan"
    )
    expect(await query((sql) => sql`SELECT id FROM api_keys WHERE tenant_id = ${tenant!.id}`)).toEqual([])
  })

  it("apikey create --name follows the API's rule: trimmed, composed (NFC), at most 100 characters", async () => {
    const tenantId = await newTenant()
    const [ok, long] = await Promise.all([
      cli("apikey", "create", "--tenant", tenantId, "--name", " Integrare ERP Ta\u0306lmaciu "),
      cli("apikey", "create", "--tenant", tenantId, "--name", "k".repeat(101))
    ])
    const { keyId } = expectJson(ok)
    expect(await query((sql) => sql`SELECT name FROM api_keys WHERE id = ${keyId}`)).toEqual([
      { name: "Integrare ERP Tălmaciu" }
    ])
    expect(expectOneLineFailure(long)).toBe("--name must be at most 100 characters")
    expect(long.code).toBe(1)
  })

  it("apikey revoke marks the key revoked (and frees a slot); an unknown or malformed id is a one-line error", async () => {
    const tenantId = await newTenant()
    const { keyId } = expectJson(await cli("apikey", "create", "--tenant", tenantId))
    expect(expectJson(await cli("apikey", "revoke", "--id", keyId))).toEqual({ keyId, revoked: true })
    const [row] = await query<{ revoked: boolean }>(
      (sql) => sql`SELECT revoked_at IS NOT NULL AS revoked FROM api_keys WHERE id = ${keyId}`
    )
    expect(row!.revoked).toBe(true)
    // Revoking twice is still a success (the key stays revoked).
    expect(expectJson(await cli("apikey", "revoke", "--id", keyId))).toEqual({ keyId, revoked: true })
    const [unknown, malformed] = await Promise.all([
      cli("apikey", "revoke", "--id", "00000000-0000-4000-8000-000000000000"),
      cli("apikey", "revoke", "--id", "svc_123")
    ])
    expect(expectOneLineFailure(unknown)).toBe("No API key with id 00000000-0000-4000-8000-000000000000")
    expect(expectOneLineFailure(malformed)).toMatch(/^--id must be a UUID/)
  })

  it("apikey list prints the tenant's keys masked, with their ids (for revoke) and last use; an unknown tenant is a one-line error", async () => {
    const tenantId = await newTenant()
    const first = expectJson(await cli("apikey", "create", "--tenant", tenantId, "--name", "CRM"))
    const second = expectJson(await cli("apikey", "create", "--tenant", tenantId))
    expectJson(await cli("apikey", "revoke", "--id", second.keyId))
    const usedAt = "2026-12-01T09:30:00.000Z"
    await query((sql) => sql`UPDATE api_keys SET last_used_at = ${new Date(usedAt)} WHERE id = ${first.keyId}`)
    const { keys } = expectJson(await cli("apikey", "list", "--tenant", tenantId))
    expect(keys).toEqual([
      {
        keyId: first.keyId,
        name: "CRM",
        maskedKey: `${(first.key as string).slice(0, 12)}…`,
        active: true,
        createdAt: expect.stringMatching(/Z$/),
        revokedAt: null,
        lastUsedAt: usedAt
      },
      expect.objectContaining({
        keyId: second.keyId,
        active: false,
        revokedAt: expect.stringMatching(/Z$/),
        lastUsedAt: null
      })
    ])
    // The full key is never printed again.
    expect(JSON.stringify(keys)).not.toContain(first.key)
    const [unknown, malformed] = await Promise.all([
      cli("apikey", "list", "--tenant", "00000000-0000-4000-8000-000000000000"),
      cli("apikey", "list", "--tenant", "acme")
    ])
    expect(expectOneLineFailure(unknown)).toBe("No tenant with id 00000000-0000-4000-8000-000000000000")
    expect(expectOneLineFailure(malformed)).toMatch(/^--tenant must be a UUID/)
  })

  it("credits set writes the balance and a ledger adjustment; a negative or non-integer value is refused", async () => {
    const tenantId = await newTenant()
    expect(expectJson(await cli("credits", "set", "--tenant", tenantId, "--remaining", "42"))).toEqual({
      remaining: 42
    })
    const periods = await query<{ remaining: number }>(
      (sql) => sql`SELECT remaining FROM credit_periods WHERE tenant_id = ${tenantId}`
    )
    expect(periods).toEqual([{ remaining: 42 }])
    const ledger = await query<{ kind: string; delta: number; balance_after: number }>(
      (sql) => sql`SELECT kind, delta, balance_after FROM credit_ledger WHERE tenant_id = ${tenantId} ORDER BY id`
    )
    expect(ledger).toEqual([
      { kind: "grant", delta: 1500, balance_after: 1500 },
      { kind: "adjustment", delta: -1458, balance_after: 42 }
    ])
    const [negative, notInteger, unknownTenant] = await Promise.all([
      cli("credits", "set", "--tenant", tenantId, "--remaining", "-1"),
      cli("credits", "set", "--tenant", tenantId, "--remaining", "1.5"),
      cli("credits", "set", "--tenant", "00000000-0000-4000-8000-000000000000", "--remaining", "5")
    ])
    expect(expectOneLineFailure(negative)).toMatch(/^--remaining must be an integer from 0/)
    expect(expectOneLineFailure(notInteger)).toBe('--remaining must be an integer, got "1.5"')
    expect(expectOneLineFailure(unknownTenant)).toBe("No tenant with id 00000000-0000-4000-8000-000000000000")
  })

  it("demo seed creates the Consultant tenant, its user, three companies with watchlists, a key and the tenders; a second run is refused", async () => {
    const seeded = expectJson(await cli("demo", "seed"))
    expect(Object.keys(seeded).sort()).toEqual(["apiKey", "companyIds", "email", "password", "tenantId"])
    expect(seeded.email).toBe(DEMO_EMAIL)
    expect(seeded.password).toBe(DEMO_PASSWORD)
    expect(seeded.apiKey).toMatch(/^svc_[0-9a-f]{64}$/)
    expect(seeded.companyIds).toHaveLength(DEMO_COMPANIES.length)

    const [tenant] = await query<{ plan: string }>((sql) => sql`SELECT plan FROM tenants WHERE id = ${seeded.tenantId}`)
    expect(tenant!.plan).toBe("consultant")
    const [user] = await query<{ password_hash: string }>(
      (sql) => sql`SELECT password_hash FROM users WHERE email = ${DEMO_EMAIL} AND tenant_id = ${seeded.tenantId}`
    )
    expect(await Effect.runPromise(verifyPassword(user!.password_hash, DEMO_PASSWORD))).toBe(true)
    const [key] = await query<{ tenant_id: string }>(
      (sql) => sql`SELECT tenant_id FROM api_keys WHERE key_hash = ${hashApiKey(seeded.apiKey)} AND revoked_at IS NULL`
    )
    expect(key!.tenant_id).toBe(seeded.tenantId)
    const watchlists = await query<{ company_id: string }>(
      (sql) => sql`SELECT company_id FROM watchlists WHERE tenant_id = ${seeded.tenantId}`
    )
    expect(new Set(watchlists.map((w) => w.company_id))).toEqual(new Set(seeded.companyIds))
    // Companies and watchlists go through their repositories, which queue each company's rescore, one
    // per company (its watchlists join the one its creation queued; other tests of this file create
    // companies of their own tenants: only this tenant's count); the seed has just scored every
    // company, so those rescores are settled, never run.
    const rescores = await query<{ company_id: string; status: string }>(
      (sql) => sql`SELECT j.payload->>'companyId' AS company_id, j.status FROM jobs j
                   JOIN companies c ON c.id::text = j.payload->>'companyId'
                   WHERE j.kind = 'company.rescore' AND c.tenant_id = ${seeded.tenantId}`
    )
    expect(new Set(rescores.map((job) => job.company_id))).toEqual(new Set(seeded.companyIds))
    expect(rescores).toHaveLength(DEMO_COMPANIES.length)
    expect(new Set(rescores.map((job) => job.status))).toEqual(new Set(["done"]))
    const [tenders] = await query<{ count: number; counties: number; future: number }>(
      (sql) => sql`
        SELECT count(*)::int AS count, count(DISTINCT a.county)::int AS counties,
               count(*) FILTER (WHERE t.deadline > now())::int AS future
        FROM tenders t JOIN contracting_authorities a ON a.id = t.authority_id WHERE t.source = 'demo'`
    )
    // Every real notice once, all open when seeded (their dates moved to now).
    expect(tenders!.count).toBe(Effect.runSync(readDemoNotices).length)
    expect(tenders!.counties).toBeGreaterThanOrEqual(30)
    expect(tenders!.future).toBe(tenders!.count)

    // Each company's top 10 is in its trade: the main CPV division of each is one it watches, or
    // (tsm-1.7.0, the stated-text route) a tender of the same kind of contract (works, supplies,
    // services) as a watched code that reads like the company's description (cpv_type none).
    for (const [i, company] of DEMO_COMPANIES.entries()) {
      const codes = company.watchlists.flatMap((w) => w.cpvCodes)
      const divisions = new Set(codes.map((code) => code.slice(0, 2)))
      const kinds = new Set(codes.map(contractKindOf))
      const top = await query<{ main_cpv: string; title: string; cpv_type: string }>(
        (sql) => sql`SELECT t.main_cpv, t.title, s.cpv_type FROM tender_scores s JOIN tenders t ON t.id = s.tender_id
                     WHERE s.company_id = ${seeded.companyIds[i]} ORDER BY s.overall_score DESC, t.id LIMIT 10`
      )
      expect(top, company.name).toHaveLength(10)
      for (const tender of top) {
        if (divisions.has(tender.main_cpv.slice(0, 2))) continue
        expect(tender.cpv_type, `${company.name}: ${tender.title}`).toBe("none")
        expect(kinds, `${company.name}: ${tender.title}`).toContain(contractKindOf(tender.main_cpv))
      }
      // Most of it by code all the same.
      expect(
        top.filter((tender) => divisions.has(tender.main_cpv.slice(0, 2))).length,
        company.name
      ).toBeGreaterThanOrEqual(8)
    }

    expect(expectOneLineFailure(await cli("demo", "seed"))).toBe(
      `The demo data is already seeded (the user ${DEMO_EMAIL} exists)`
    )
  })

  it("an option given twice is a one-line error naming it, and nothing is written", async () => {
    const before = await query((sql) => sql`SELECT count(*)::int AS n FROM tenants`)
    const [twice, twiceWithEquals] = await Promise.all([
      cli("tenant", "create", "--name", "A", "--name", "B", "--plan", "free"),
      cli("tenant", "create", "--name", "A", "--plan=free", "--plan", "starter")
    ])
    expect(expectOneLineFailure(twice)).toBe("--name is given more than once: give it once")
    expect(expectOneLineFailure(twiceWithEquals)).toBe("--plan is given more than once: give it once")
    expect(await query((sql) => sql`SELECT count(*)::int AS n FROM tenants`)).toEqual(before)
  })

  it("a command group without its subcommand, or no command, is a one-line error", async () => {
    const [group, none] = await Promise.all([cli("apikey"), cli()])
    expect(expectOneLineFailure(group)).toBe("Missing subcommand: apikey create|list|revoke (see apikey --help)")
    expect(expectOneLineFailure(none)).toBe("Missing command (see --help for the list)")
  })

  it("tenders without its subcommand is a one-line error with exit 1, like every other group (not the help and exit 0)", async () => {
    const result = await cli("tenders")
    expect(expectOneLineFailure(result)).toBe("Missing subcommand: tenders import (see tenders --help)")
    expect(result.code).toBe(1)
  })

  it("the invocation README's CLI section gives (npm run -s cli -- …) prints the JSON alone on stdout, as every doc and the banner name it", async () => {
    const readme = readFileSync(join(PROJECT_ROOT, "README.md"), "utf8")
    const cliSection = readme.slice(readme.indexOf("\n## CLI\n"))
    const invocation = /^`(npm run[^`]* cli --) <command>`/m.exec(cliSection)?.[1]
    expect(invocation, "README's CLI section opens with its invocation").toBeDefined()
    const [npm, ...npmArgs] = invocation!.split(" ")
    const result = await new Promise<ProcessResult>((resolve) =>
      execFile(
        npm!,
        [...npmArgs, "tenant", "list"],
        { cwd: PROJECT_ROOT, env: { ...process.env, DATABASE_URL: databaseUrl }, timeout: 90_000 },
        (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
      )
    )
    // Plain `npm run cli` prints "> tender-scoring-service@0.1.0 cli" and the script line before the JSON.
    expect(expectJson(result)).toHaveProperty("tenants")
    // Every place that tells an operator how to run a command names the same form.
    const docs = readdirSync(join(PROJECT_ROOT, "docs"))
      .filter((name) => name.endsWith(".md"))
      .map((name) => join("docs", name))
    for (const file of ["README.md", ...docs, "src/bin/all-in-one.ts", "src/bin/cli.ts"]) {
      const text = readFileSync(join(PROJECT_ROOT, file), "utf8")
      expect(text.match(/npm run (?!-s cli --)[^\n]{0,3}cli\b/g), file).toBeNull()
    }
  })

  it("a database error inside a command names PostgreSQL's reason in one line (a lock wait past the session's lock_timeout)", async () => {
    const url = new URL(databaseUrl)
    url.searchParams.set("lock_timeout", "1000")
    const result = await runtime.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.withTransaction(
          Effect.zipRight(
            sql`LOCK TABLE tenants IN ACCESS EXCLUSIVE MODE`,
            Effect.promise(() => runCli(url.toString(), "tenant", "list"))
          )
        )
      ).pipe(Effect.orDie)
    )
    expect(expectOneLineFailure(result)).toBe(
      "Database error: Failed to execute statement: canceling statement due to lock timeout"
    )
  })

  it(`the CLI's sessions wait at most ${Duration.format(CLI_LOCK_TIMEOUT)} for a lock; the API's requests have their limits, the worker's jobs none`, async () => {
    const limitsOf = (database: Layer.Layer<SqlClient.SqlClient, unknown, AppConfig | DatabaseUrl>) =>
      Effect.runPromise(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql<{ lock: string; statement: string }>`
            SELECT current_setting('lock_timeout') AS lock, current_setting('statement_timeout') AS statement`
        ).pipe(
          Effect.provide(
            database.pipe(
              Layer.provide(DatabaseUrlLive),
              Layer.provide(AppConfigLive),
              Layer.provide(Layer.setConfigProvider(environmentConfig({ DATABASE_URL: databaseUrl })))
            )
          ),
          Effect.scoped
        )
      )
    expect(await limitsOf(CliDatabaseLive)).toEqual([{ lock: "30s", statement: "0" }])
    expect(await limitsOf(RequestDatabaseLive)).toEqual([{ lock: "5s", statement: "15s" }])
    expect(await limitsOf(BackgroundDatabaseLive)).toEqual([{ lock: "0", statement: "0" }])
  })

  it("only the API's request pool opens DATABASE_READ_URL's replica: the worker's and the CLI's start without it", async () => {
    // Nothing listens on port 1: a replica that does not answer.
    const deadReplica = "postgres://postgres@127.0.0.1:1/postgres"
    const start = (database: Layer.Layer<SqlClient.SqlClient, unknown, AppConfig | DatabaseUrl>) =>
      Effect.runPromiseExit(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const replica = yield* Effect.serviceOption(ReadPool)
          const [row] = yield* sql<{ one: number }>`SELECT 1 AS one`
          return { one: row!.one, replica: replica._tag }
        }).pipe(
          Effect.provide(
            database.pipe(
              Layer.provide(DatabaseUrlLive),
              Layer.provide(AppConfigLive),
              Layer.provide(
                Layer.setConfigProvider(
                  environmentConfig({ DATABASE_URL: databaseUrl, DATABASE_READ_URL: deadReplica })
                )
              )
            )
          ),
          Effect.scoped
        )
      )
    for (const database of [BackgroundDatabaseLive, CliDatabaseLive]) {
      const exit = await start(database)
      expect(exit._tag === "Success" && exit.value).toEqual({ one: 1, replica: "None" })
    }
    const api = await start(RequestDatabaseLive)
    expect(api._tag).toBe("Failure")
    expect(String(api._tag === "Failure" && Cause.pretty(api.cause))).toContain("DATABASE_READ_URL")
  })

  it("an unreachable database is a one-line error", async () => {
    const url = new URL(databaseUrl)
    url.pathname = "/tss_no_such_database"
    const line = expectOneLineFailure(await runCli(url.toString(), "migrate"))
    expect(line).toMatch(/^Database error: /)
  })
})
