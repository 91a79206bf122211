import { NodeRuntime, NodeWorkerRunner } from "@effect/platform-node"
import { Effect } from "effect"
import { RendererServerLive, rendererOptionsFromEnv } from "../infra/reports/RendererServer.js"

/**
 * The PDF renderer process, started by a worker (src/infra/reports/PdfRenderer.ts) with an IPC
 * channel; not meant to be run by hand. It ends when the worker closes the channel or dies.
 */
process.on("disconnect", () => process.exit(0))
// A message to a worker that is already gone: nothing left to answer.
process.on("error", () => process.exit(0))
NodeRuntime.runMain(
  Effect.flatMap(rendererOptionsFromEnv, (options) => NodeWorkerRunner.launch(RendererServerLive(options)))
)
