/**
 * PROBE (not the service): the baseline's list request (bench/baseline-server.ts: the same statements,
 * Redis call and JSON) served inside a minimal HttpApi: one endpoint with the service's own URL
 * parameter Schema (ListQuery), a bearer security middleware providing the caller, and each step's
 * work done as one plain async function wrapped in one Effect. It measures what HttpApi itself costs
 * on this request, apart from how the service's code is shaped.
 *
 *   BENCH_BASELINE=bench/probe-httpapi-list.ts npm run bench -- api
 */
import { timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"
import {
  HttpApi,
  HttpApiBuilder,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema,
  HttpApiSecurity,
  HttpMiddleware,
  HttpServerResponse
} from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Context, Effect, Layer, Redacted, Schema } from "effect"
import { Redis } from "ioredis"
import pg from "pg"
import { hashApiKey, isWellFormedApiKey } from "../src/domain/ApiKey.js"
import { creditPeriodAt } from "../src/domain/CreditPeriod.js"
import { decodeCursor, queryFingerprint } from "../src/domain/Cursor.js"
import { planRules } from "../src/domain/Plan.js"
import { ListQuery } from "../src/http/tenders/TendersApi.js"
import { ApiKeyStatements } from "../src/infra/auth/ApiKeyStatements.js"
import { CreditStatements } from "../src/infra/billing/CreditStatements.js"
import type { Statement } from "../src/infra/db/PreparedStatements.js"
import { defineFixedWindow } from "../src/infra/limits/RateLimitStore.js"
import { ScoreListStatements } from "../src/infra/scoring/ScoreListStatements.js"
import { creditHeaders, listPageBody } from "./BaselinePage.js"

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 })
const secret = Buffer.from(process.env.CURSOR_SECRET ?? "", "hex")
const rateLimitPerMinute = Number(process.env.RATE_LIMIT_GENERAL_PER_MINUTE ?? 60)
const fixedWindow = defineFixedWindow(new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379"))

const run = async <Params extends ReadonlyArray<unknown>, Row>(statement: Statement<Params, Row>, params: Params) =>
  (await pool.query({ name: statement.name, text: statement.text, values: params as unknown as Array<unknown> }))
    .rows as Array<Row>

class Refused extends Schema.TaggedError<Refused>()(
  "Refused",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 401 })
) {}
class Caller extends Context.Tag("Caller")<Caller, { readonly tenantId: string }>() {}
class KeyAuth extends HttpApiMiddleware.Tag<KeyAuth>()("KeyAuth", {
  failure: Refused,
  provides: Caller,
  security: { apiKey: HttpApiSecurity.bearer }
}) {}

class Probe extends HttpApi.make("probe")
  .add(
    HttpApiGroup.make("tenders")
      .add(HttpApiEndpoint.get("list", "/tenders").setUrlParams(ListQuery).addSuccess(Schema.Unknown))
      .middleware(KeyAuth)
      .prefix("/api/v1")
  )
  .add(HttpApiGroup.make("system").add(HttpApiEndpoint.get("health", "/health").addSuccess(Schema.Unknown))) {}

/** The baseline's key check and rate limit, as one async step. */
const authenticate = async (presented: string) => {
  if (!isWellFormedApiKey(presented)) return undefined
  const hash = hashApiKey(presented)
  const [owner] = await run(ApiKeyStatements.apiKeyOwner, [hash])
  if (!owner || !timingSafeEqual(owner.key_hash, hash) || owner.revoked || !planRules[owner.plan].apiAccess)
    return undefined
  const [count] = await fixedWindow(
    `tss:probe:general:${owner.tenant_id}`,
    1,
    60_000 / rateLimitPerMinute,
    rateLimitPerMinute
  )
  return count <= rateLimitPerMinute ? { tenantId: owner.tenant_id } : undefined
}

/** The baseline's page, charge and JSON, as one async step (its period-opening path left out: periods are open). */
const listPage = async (tenantId: string, params: typeof ListQuery.Type) => {
  const companyId = params.companyId.toLowerCase()
  const minScore = params.minScore ?? 0
  const limit = params.limit ?? 20
  const query = queryFingerprint(["tenders", companyId, minScore])
  let cursorBound: string | null = null
  let after: [number, string, string] | undefined
  if (params.cursor !== undefined) {
    const decoded = decodeCursor(secret, query, params.cursor)
    if (decoded._tag === "Left") throw new Error("invalid cursor")
    after = decoded.right.key as [number, string, string]
    cursorBound = decoded.right.bound
  }
  const head = [companyId, minScore, cursorBound, limit + 1, tenantId] as const
  const pageRows =
    after === undefined
      ? await run(ScoreListStatements.listPage, head)
      : await run(ScoreListStatements.listPageAfter, [...head, ...after])
  const { bound, total } = pageRows[0]!
  const rows = pageRows.filter((row): row is Extract<typeof row, { tender_id: string }> => row.tender_id !== null)
  const page = rows.length > limit ? rows.slice(0, limit) : rows
  const period = creditPeriodAt(Date.now())
  const [charge] = await run(CreditStatements.creditCharge, [
    tenantId,
    period.start,
    page.length,
    1,
    "GET /api/v1/tenders",
    new Date()
  ])
  const served = charge!.charged < page.length ? page.slice(0, charge!.charged) : page
  const text = JSON.stringify(
    listPageBody({
      secret,
      query,
      rows,
      served,
      total,
      bound,
      limit,
      charge: { ...charge!, periodEndsAt: period.endsAtText }
    })
  )
  return HttpServerResponse.raw(text, {
    contentType: "application/json",
    contentLength: Buffer.byteLength(text),
    headers: creditHeaders(charge!)
  })
}

const KeyAuthLive = Layer.succeed(
  KeyAuth,
  KeyAuth.of({
    apiKey: (token) =>
      Effect.flatMap(
        Effect.promise(() => authenticate(Redacted.value(token))),
        (caller) => (caller === undefined ? Effect.fail(new Refused({ message: "refused" })) : Effect.succeed(caller))
      )
  })
)
const TendersLive = HttpApiBuilder.group(Probe, "tenders", (handlers) =>
  handlers.handle("list", ({ urlParams }) =>
    Effect.flatMap(Caller, (caller) => Effect.promise(() => listPage(caller.tenantId, urlParams)))
  )
).pipe(Layer.provide(KeyAuthLive))
const SystemLive = HttpApiBuilder.group(Probe, "system", (handlers) =>
  handlers.handle("health", () => Effect.succeed(HttpServerResponse.unsafeJson({ status: "ok" })))
)

const ServerLive = HttpMiddleware.withTracerDisabledWhen(HttpApiBuilder.serve(), () => true).pipe(
  Layer.provide(HttpApiBuilder.api(Probe).pipe(Layer.provide([TendersLive, SystemLive]))),
  Layer.provide(
    NodeHttpServer.layer(() => createServer({ keepAliveTimeout: 65_000 }), {
      port: Number(process.env.PORT ?? 3100),
      host: "127.0.0.1"
    })
  )
)

process.on("SIGTERM", () => process.exit(0))
NodeRuntime.runMain(Layer.launch(ServerLive))
