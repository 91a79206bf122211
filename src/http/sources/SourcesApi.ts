import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { SOURCE_NAMES } from "../../domain/ingest/SourceFailure.js"
import { DateString, DateTimeString } from "../../domain/Timestamps.js"
import { AccessTokenAuth } from "../AccessTokenAuth.js"

export const SourceStatus = Schema.Struct({
  name: Schema.Literal(...SOURCE_NAMES),
  enabled: Schema.Boolean.annotations({
    description: "Polled by a worker (its INGEST_SOURCES): the poller's heartbeat is under 3 minutes old"
  }),
  watermark: DateString.annotations({ description: "The earliest publication day the next poll asks for" }),
  lastSuccessAt: Schema.NullOr(DateTimeString),
  lastErrorAt: Schema.NullOr(DateTimeString),
  lastError: Schema.NullOr(Schema.String),
  ingested: Schema.Number.annotations({ description: "Notices taken in since the first poll" }),
  skipped: Schema.Number.annotations({
    description: "Notices skipped (malformed, unreadable), each logged with its reason"
  }),
  retryingNotices: Schema.Number.annotations({
    description: "Notices whose read failed during their poll and whose retry job is still queued or running"
  }),
  lostNotices: Schema.Number.annotations({
    description:
      "Notices whose retry job ran out of attempts (about a week) and was dead-lettered in the last 30 days (dead jobs are kept that long): not taken in"
  })
})

/** The notice sources' state for the app's settings ("Surse de date"; access token), under /api/v1/sources. */
export class SourcesApi extends HttpApiGroup.make("sources")
  .add(
    HttpApiEndpoint.get("list", "/")
      .annotate(
        OpenApi.Summary,
        "Notice sources (TED, SEAP): polled or not, watermark, last success and error, counts, notices retrying and lost"
      )
      .addSuccess(Schema.Struct({ data: Schema.Array(SourceStatus) }))
  )
  .middleware(AccessTokenAuth)
  .prefix("/api/v1/sources")
  .annotate(
    OpenApi.Description,
    'The live-ingestion pollers of the two notice sources (TED, SEAP/SICAP): what the settings screen shows as "Surse de date"; access token, every plan.'
  )
  .annotate(OpenApi.Title, "Account: notice sources") {}
