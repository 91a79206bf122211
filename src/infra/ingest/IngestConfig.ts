import { Config, Context, Duration, Effect, Layer } from "effect"
import { SOURCE_NAMES, type SourceName } from "../../domain/ingest/SourceFailure.js"
import { AppConfig, readConfig } from "../config/AppConfig.js"
import { userAgent } from "./SourceClient.js"

/** How the pollers run (README, "Live ingestion"). */
export interface IngestConfigShape {
  /** INGEST_SOURCES: the sources polled; empty (unset or `none`) means ingestion is off. */
  readonly sources: ReadonlyArray<SourceName>
  /** TED_API_URL: where the TED Search API v3 is (tests point it at their fake). */
  readonly tedApiUrl: string
  /** SEAP_API_URL: where e-licitatie.ro's api-pub is. */
  readonly seapApiUrl: string
  /** INGEST_POLL_SECONDS: the wait between two polls of a source. */
  readonly pollEvery: Duration.Duration
  /** TED_REQUEST_SPACING_MS / SEAP_REQUEST_SPACING_MS: the least time between two requests to a source. */
  readonly spacing: Readonly<Record<SourceName, Duration.Duration>>
  /** INGEST_PAGE_SIZE: notices asked per list page (TED allows 250 at most; tests page by 2). */
  readonly pageSize: number
  /** Days of SEAP contract-notice lists asked again once a day, for errata and cancellations (0: none). */
  readonly seapRevisitDays: number
  readonly userAgent: string
}

export class IngestConfig extends Context.Tag("IngestConfig")<IngestConfig, IngestConfigShape>() {}

const sourceList = Config.string("INGEST_SOURCES").pipe(
  Config.withDefault("none"),
  Config.map((value) =>
    value
      .split(",")
      .map((part) => part.trim().toLowerCase())
      .filter((part) => part !== "" && part !== "none")
  ),
  Config.validate({
    message: `INGEST_SOURCES: Expected a comma list of ${SOURCE_NAMES.join(", ")} (or none)`,
    validation: (names) => names.every((name) => (SOURCE_NAMES as ReadonlyArray<string>).includes(name))
  }),
  Config.map((names) => SOURCE_NAMES.filter((name) => names.includes(name)))
)

const baseUrl = (name: string, fallback: string) =>
  Config.string(name).pipe(
    Config.withDefault(fallback),
    Config.validate({
      message: `${name}: Expected an http:// or https:// URL`,
      validation: (value) => URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol)
    }),
    Config.map((value) => value.replace(/\/+$/, ""))
  )

const millis = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name}: Expected a whole number of milliseconds >= 0`, validation: (n) => n >= 0 }),
    Config.map(Duration.millis)
  )

export const ingestConfig = Config.all({
  sources: sourceList,
  tedApiUrl: baseUrl("TED_API_URL", "https://api.ted.europa.eu"),
  seapApiUrl: baseUrl("SEAP_API_URL", "https://e-licitatie.ro"),
  pollEvery: Config.integer("INGEST_POLL_SECONDS").pipe(
    Config.withDefault(300),
    Config.validate({ message: "INGEST_POLL_SECONDS: Expected a whole number >= 1", validation: (n) => n >= 1 }),
    Config.map(Duration.seconds)
  ),
  // TED allows about 700 requests a minute per address; SEAP blocks clients that ask fast.
  spacing: Config.all({ ted: millis("TED_REQUEST_SPACING_MS", 250), seap: millis("SEAP_REQUEST_SPACING_MS", 2000) }),
  pageSize: Config.integer("INGEST_PAGE_SIZE").pipe(
    Config.withDefault(100),
    Config.validate({
      message: "INGEST_PAGE_SIZE: Expected a whole number from 1 to 250",
      validation: (n) => n >= 1 && n <= 250
    })
  ),
  seapRevisitDays: Config.integer("INGEST_SEAP_REVISIT_DAYS").pipe(
    Config.withDefault(14),
    Config.validate({
      message: "INGEST_SEAP_REVISIT_DAYS: Expected a whole number from 0 to 90",
      validation: (n) => n >= 0 && n <= 90
    })
  )
})

/** From the environment, with the User-Agent naming the service's public address. */
export const IngestConfigLive = Layer.effect(
  IngestConfig,
  Effect.gen(function* () {
    const app = yield* AppConfig
    const read = yield* readConfig(ingestConfig)
    return { ...read, userAgent: userAgent(app.publicBaseUrl) }
  })
)
