import { Cause, Console, Context, Duration, Effect, Exit, Layer, Option } from "effect"
import { DEMO_COMPANIES, DEMO_EMAIL, DEMO_PASSWORD } from "../demo/DemoData.js"
import { type DemoSeedResult, databaseIsEmpty, seedDemoAndScore } from "../demo/seedDemo.js"
import { HttpServerLive } from "../http/Server.js"
import { CompanyProfilesRepo } from "../infra/accounts/CompanyProfilesRepo.js"
import { UsersRepo } from "../infra/accounts/UsersRepo.js"
import { AppConfig } from "../infra/config/AppConfig.js"
import { BackgroundDatabaseLive } from "../infra/db/Database.js"
import { type IngestConfigShape, ingestConfig } from "../infra/ingest/IngestConfig.js"
import { MetricsEndpointLive } from "../infra/metrics/MetricsEndpoint.js"
import { TracingLive } from "../infra/observability/Tracing.js"
import { RepositoriesLive } from "../infra/Repositories.js"
import {
  BackgroundWorkLive,
  BackgroundWorkVariables,
  InfraLive,
  launch,
  MigrateOnStart,
  onRequestPool,
  runProcess
} from "./Main.js"

/** What this start did about demo data: seeded it now (with the one-time API key), or found data. */
class FirstStart extends Context.Tag("FirstStart")<FirstStart, Option.Option<DemoSeedResult>>() {}

/** Seeds the demo data when the database has no tenant yet (a fresh `./.data`), and only then. */
const SeedOnEmptyDatabase = Layer.scoped(
  FirstStart,
  Effect.gen(function* () {
    if (!(yield* databaseIsEmpty)) return Option.none()
    yield* Effect.logInfo("Empty database: seeding the demo data")
    const seeded = yield* seedDemoAndScore
    // The key is shown once, in the banner; a start that fails after the seed (a port taken) would
    // lose it, and the next start finds the database seeded: it is printed with the failure instead.
    yield* Effect.addFinalizer((exit) =>
      Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause)
        ? Console.error(
            `The demo data was seeded before the start failed. Its API key (shown only now): ${seeded.apiKey}`
          )
        : Effect.void
    )
    return Option.some(seeded)
  })
)

/** A company the banner names, so an integrator can call `/api/v1/tenders?companyId=…` at once. */
interface BannerCompany {
  readonly name: string
  readonly id: string
}

/**
 * The demo tenant's companies on a later start (the demo user's tenant, then its companies: two
 * indexed reads); none when the demo user is gone.
 */
const demoCompanies = Effect.gen(function* () {
  const user = yield* Effect.flatMap(UsersRepo, (users) => users.findByEmail(DEMO_EMAIL))
  if (Option.isNone(user)) return []
  const companies = yield* Effect.flatMap(CompanyProfilesRepo, (profiles) => profiles.list(user.value.tenantId))
  return companies.filter((company) => company.active).map(({ name, id }): BannerCompany => ({ name, id }))
})

/** By name, so the first and later starts list them alike (the seed creates them in one instant). */
const companyLines = (companies: ReadonlyArray<BannerCompany>) =>
  companies.length === 0
    ? []
    : [
        "    Companies: (companyId for /api/v1/tenders?companyId=…)",
        ...[...companies]
          .sort((a, b) => a.name.localeCompare(b.name, "ro"))
          .map(({ name, id }) => `               ${id}  ${name}`)
      ]

/** Whether live ingestion runs, and how to turn it on when it does not. */
const ingestionLine = (ingest: Pick<IngestConfigShape, "sources" | "pollEvery">) =>
  ingest.sources.length === 0
    ? "    Ingestion: off (INGEST_SOURCES=ted,seap polls TED and SEAP for new notices; see README)"
    : `    Ingestion: ${ingest.sources.join(", ")}, every ${Duration.format(ingest.pollEvery)} (npm run -s cli -- sources status)`

const banner = (
  baseUrl: string,
  seeded: Option.Option<DemoSeedResult>,
  companies: ReadonlyArray<BannerCompany>,
  ingest: Option.Option<Pick<IngestConfigShape, "sources" | "pollEvery">>
) =>
  [
    "",
    "  Tender Scoring Service is running",
    `    URL:       ${baseUrl}   (docs: ${baseUrl}/docs)`,
    `    Login:     ${DEMO_EMAIL} / ${DEMO_PASSWORD}`,
    Option.match(seeded, {
      onSome: ({ apiKey }) => `    API key:   ${apiKey}   (shown only now; keep it)`,
      onNone: () =>
        "    API key:   shown at the first start; create another with\n" +
        "               npm run -s cli -- apikey create --tenant <tenantId>\n" +
        "               (the tenant ids: npm run -s cli -- tenant list)"
    }),
    ...companyLines(companies),
    ...Option.toArray(Option.map(ingest, ingestionLine)),
    ""
  ].join("\n")

/** Printed once the server listens, so the URL it shows already answers. */
const Banner = Layer.effectDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    // Read here rather than from the worker's layers, so the banner waits for the server only; an
    // invalid INGEST_* variable has stopped the start already (`launch`).
    const ingest = yield* Effect.option(ingestConfig)
    const seeded = yield* FirstStart
    const companies = Option.match(seeded, {
      // Seeded now: the ids are known (in the order of DEMO_COMPANIES).
      onSome: ({ companyIds }) =>
        Effect.succeed(companyIds.map((id, i): BannerCompany => ({ id, name: DEMO_COMPANIES[i]?.name ?? "" }))),
      onNone: () => demoCompanies
    })
    yield* Console.log(banner(config.publicBaseUrl, seeded, yield* companies, ingest))
  })
)

/**
 * `npm start`: the API and a worker in one process, on the embedded defaults unless configured.
 * Order: migrations, demo seed (empty database only), then the server (and, once it listens, the
 * banner) beside the background work. Two pools, as the two processes have: the server's requests on
 * the time-limited request pool (onRequestPool), the rest on BackgroundDatabaseLive.
 */
const AllInOne = onRequestPool(
  Layer.mergeAll(
    Banner.pipe(Layer.provide(HttpServerLive)),
    // One endpoint for all this process runs (METRICS_PORT); its pool gauge is the request pool's.
    MetricsEndpointLive("METRICS_PORT")
  )
).pipe(
  // The background work starts first: a layer of it that fails then stops the start with its
  // message (its variables are checked before, by `launch`). Built beside the server, its failure
  // was lost in the server's interruption and the process exited 0 without a word.
  Layer.provide(BackgroundWorkLive),
  Layer.provideMerge(SeedOnEmptyDatabase),
  Layer.provide(MigrateOnStart),
  Layer.provideMerge(RepositoriesLive),
  Layer.provideMerge(BackgroundDatabaseLive),
  Layer.provideMerge(InfraLive),
  Layer.provide(TracingLive("tender-scoring-service"))
)

runProcess(launch(AllInOne.pipe(Layer.discard), BackgroundWorkVariables))
