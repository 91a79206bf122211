import { HttpApiBuilder } from "@effect/platform"
import type { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { IngestState } from "../../infra/ingest/IngestState.js"
import { sourceReports } from "../../infra/ingest/NoticeJobs.js"
import { AccessTokenAuthLive } from "../AccessTokenAuthLive.js"
import { Api } from "../Api.js"

export const SourcesHttpLive = HttpApiBuilder.group(Api, "sources", (handlers) =>
  Effect.gen(function* () {
    const services = yield* Effect.context<IngestState | SqlClient.SqlClient>()
    return handlers.handle("list", () =>
      sourceReports.pipe(
        Effect.map((data) => ({ data })),
        Effect.provide(services)
      )
    )
  })
).pipe(Layer.provide(AccessTokenAuthLive))
