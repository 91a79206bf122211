import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { IngestState, sourceStatus } from "../../infra/ingest/IngestState.js"
import { AccessTokenAuthLive } from "../AccessTokenAuthLive.js"
import { Api } from "../Api.js"

export const SourcesHttpLive = HttpApiBuilder.group(Api, "sources", (handlers) =>
  Effect.gen(function* () {
    const ingest = yield* IngestState
    return handlers.handle("list", () => Effect.map(ingest.all, (states) => ({ data: states.map(sourceStatus) })))
  })
).pipe(Layer.provide(AccessTokenAuthLive))
