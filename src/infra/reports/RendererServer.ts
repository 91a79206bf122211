import { NodeWorkerRunner } from "@effect/platform-node"
import { RpcServer } from "@effect/rpc"
import { Effect, Layer, Option, Schema } from "effect"
import { PuppeteerPdf, PuppeteerPdfLive } from "./PuppeteerPdf.js"
import { RENDERER_OPTIONS_VARIABLE, RendererOptions, RendererRpcs } from "./RendererRpc.js"

const handlers = RendererRpcs.toLayer(
  Effect.gen(function* () {
    const pdf = yield* PuppeteerPdf
    return { RenderPdf: (request) => pdf.render(request), BrowserPid: () => pdf.browserPid }
  })
)

/** The renderer process: the RPC server over the parent's IPC channel, answering from one warm browser. */
export const RendererServerLive = (options: typeof RendererOptions.Type) =>
  RpcServer.layer(RendererRpcs).pipe(
    Layer.provide(handlers),
    Layer.provide(
      PuppeteerPdfLive({
        chromiumPath: Option.fromNullable(options.chromiumPath),
        concurrency: options.concurrency,
        allowedRequestPrefixes: options.allowedRequestPrefixes
      })
    ),
    Layer.provide(RpcServer.layerProtocolWorkerRunner),
    Layer.provide(NodeWorkerRunner.layer)
  )

export const rendererOptionsFromEnv = Schema.decodeUnknown(Schema.parseJson(RendererOptions))(
  process.env[RENDERER_OPTIONS_VARIABLE] ?? ""
)
