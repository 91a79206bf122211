import { randomBytes } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  apiUp,
  freePort,
  type OwnRedis,
  type Seeded,
  type ServiceProcess,
  seedAccount,
  spawnService,
  startOwnRedis,
  stopProcess
} from "../hardening/OwnServers.js"
import { request } from "../support/http.js"
import { type PrimaryWithReplica, startPrimaryWithReplica } from "../support/StreamingReplica.js"

/**
 * DATABASE_READ_URL: the key API's list pages read a real hot standby streaming from the primary,
 * while everything that writes (the credit charge) and the key lookup stay on the primary. Replay on
 * the standby is paused to tell the two apart: what the list shows is what the standby has applied.
 */
describe("read replica (DATABASE_READ_URL): the key API's list pages read the standby", () => {
  let servers: PrimaryWithReplica
  let redis: OwnRedis
  let api: ServiceProcess
  let baseUrl: string
  let account: Seeded

  const primary = async <Row>(text: string, values: ReadonlyArray<unknown> = []) => {
    const client = new pg.Client({ connectionString: servers.primaryUrl })
    await client.connect()
    try {
      return (await client.query(text, [...values])).rows as Array<Row>
    } finally {
      await client.end()
    }
  }
  const list = (companyId: string, query = "") =>
    request(`${baseUrl}/api/v1/tenders?companyId=${companyId}${query}`, { token: account.key })
  /** Credits charged to the account so far (1 per listed item), as the primary's ledger has them. */
  const charged = async () =>
    (
      await primary<{ n: number }>(
        "SELECT coalesce(-sum(delta), 0)::int AS n FROM credit_ledger WHERE tenant_id = $1 AND kind = 'charge'",
        [account.tenantId]
      )
    )[0]!.n
  /** Another scored tender for the account's company, written on the primary. */
  const scoreAnother = async () => {
    const [authority] = await primary<{ id: string }>(
      "INSERT INTO contracting_authorities (name, normalized_name) VALUES ('B', $1) RETURNING id",
      [`b-${randomBytes(4).toString("hex")}`]
    )
    const [tender] = await primary<{ id: string; ingest_seq: string }>(
      `INSERT INTO tenders (source, source_notice_id, title, main_cpv, authority_id, publish_date)
       VALUES ('replica', $1, 'T', '45000000-7', $2, now()) RETURNING id, ingest_seq`,
      [randomBytes(6).toString("hex"), authority!.id]
    )
    await primary(
      `INSERT INTO tender_scores (company_id, tender_id, overall_score, overall_confidence, verdict, score_semantic,
         score_keyword, score_cpv, score_value_fit, score_historical, cpv_type, model_version, scored_at,
         tender_publish_date, tender_ingest_seq)
       VALUES ($1, $2, 60, 0.5, 'RESEARCH', 0.5, 0.5, 0.5, 0.5, 0.5, 'primary', 'tsm-1.0.0', now(), now(), $3)`,
      [account.companyId, tender!.id, tender!.ingest_seq]
    )
  }

  beforeAll(async () => {
    ;[servers, redis] = await Promise.all([startPrimaryWithReplica(), startOwnRedis()])
    const port = await freePort()
    baseUrl = `http://127.0.0.1:${port}`
    api = spawnService("api", {
      DATABASE_URL: servers.primaryUrl,
      DATABASE_READ_URL: servers.replicaUrl,
      REDIS_URL: redis.url,
      PORT: String(port),
      HOST: "127.0.0.1"
    })
    await apiUp(baseUrl)
    account = await seedAccount(servers.primaryUrl, 3)
    await servers.caughtUp()
  }, 180_000)

  afterAll(async () => {
    if (api !== undefined) await stopProcess(api.child, "SIGTERM")
    await redis?.kill()
    await servers?.destroy()
  })

  it("/ready checks the standby beside the primary", async () => {
    const ready = await request(`${baseUrl}/ready`)
    expect(ready.status).toBe(200)
    expect(ready.body.checks).toMatchObject({ database: "ok", replica: "ok", redis: "ok" })
  })

  it("lists what the standby has applied, charges on the primary, and shows the rest once replay resumes", async () => {
    const first = await list(account.companyId)
    expect(first.status).toBe(200)
    expect(first.body.data).toHaveLength(3)
    expect(await charged()).toBe(3)

    await servers.pauseReplay()
    try {
      await scoreAnother()
      await scoreAnother()
      // The primary has five; the standby, paused, still three: the page is the standby's.
      expect(
        (
          await primary<{ n: number }>("SELECT count(*)::int AS n FROM tender_scores WHERE company_id = $1", [
            account.companyId
          ])
        )[0]!.n
      ).toBe(5)
      const stale = await list(account.companyId)
      expect(stale.status).toBe(200)
      expect(stale.body.data).toHaveLength(3)
      // The charge is a write: the primary took it while the standby was paused.
      expect(await charged()).toBe(6)
    } finally {
      await servers.resumeReplay()
    }
    await servers.caughtUp()
    const fresh = await list(account.companyId)
    expect(fresh.body.data).toHaveLength(5)
    expect(await charged()).toBe(11)
  })

  it("pages through a list on the standby with cursors (page 1's snapshot is the standby's)", async () => {
    await servers.caughtUp()
    const seen: Array<string> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const page = await list(account.companyId, `&limit=2${cursor === null ? "" : `&cursor=${cursor}`}`)
      expect(page.status).toBe(200)
      seen.push(...(page.body.data as Array<{ tender_id: string }>).map((item) => item.tender_id))
      cursor = (page.body.meta.next_cursor as string | null) ?? null
      pages += 1
    } while (cursor !== null && pages < 10)
    expect(seen).toHaveLength(5)
    expect(new Set(seen).size).toBe(5)
  })

  it("a company the standby does not have yet is found on the primary, not refused", async () => {
    await servers.pauseReplay()
    try {
      const [company] = await primary<{ id: string }>(
        "INSERT INTO companies (tenant_id, name) VALUES ($1, 'Nouă SRL') RETURNING id",
        [account.tenantId]
      )
      const res = await list(company!.id)
      expect(res.status).toBe(200)
      expect(res.body.data).toEqual([])
      // Another tenant's company stays refused, on the standby and on the primary alike.
      const other = await seedAccount(servers.primaryUrl, 1)
      const refused = await list(other.companyId)
      expect(refused.status).toBe(403)
      expect(refused.body.code).toBe("COMPANY_ACCESS_DENIED")
    } finally {
      await servers.resumeReplay()
    }
  })
})
