import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { makeSourceReports } from "../../infra/ingest/NoticeJobs.js"
import { AccessTokenAuthLive } from "../AccessTokenAuthLive.js"
import { Api } from "../Api.js"

export const SourcesHttpLive = HttpApiBuilder.group(Api, "sources", (handlers) =>
  Effect.map(makeSourceReports, (sourceReports) =>
    handlers.handle("list", () => Effect.map(sourceReports, (data) => ({ data })))
  )
).pipe(Layer.provide(AccessTokenAuthLive))
