import { Rpc, RpcGroup } from "@effect/rpc"
import { Schema } from "effect"

/** A render that did not produce a PDF (timeout, crashed browser, refused page). */
export class RenderFailed extends Schema.TaggedError<RenderFailed>()("RenderFailed", { message: Schema.String }) {}

/** What the renderer needs for one report: the page, its footer template and its time budget. */
export const RenderRequest = Schema.Struct({
  html: Schema.String,
  footerHtml: Schema.String,
  timeoutMillis: Schema.Int.pipe(Schema.positive())
})
export type RenderRequest = typeof RenderRequest.Type

/**
 * The messages of the renderer actor, which runs in its own child process: render one PDF; name the
 * pid of its current browser (none before the first render), for operations and the recovery tests.
 * Bytes cross the process boundary as they are (IPC with structured-clone serialisation).
 */
export class RendererRpcs extends RpcGroup.make(
  Rpc.make("RenderPdf", { payload: RenderRequest, success: Schema.Uint8ArrayFromSelf, error: RenderFailed }),
  Rpc.make("BrowserPid", { success: Schema.OptionFromNullOr(Schema.Int) })
) {}

/** What the worker tells its renderer process when it starts it (an environment variable, as JSON). */
export const RendererOptions = Schema.Struct({
  chromiumPath: Schema.NullOr(Schema.String),
  concurrency: Schema.Int.pipe(Schema.positive()),
  /** URL prefixes a page may fetch besides `data:` URLs: none in the service (PuppeteerPdf, `lockedDown`). */
  allowedRequestPrefixes: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
})
export const RENDERER_OPTIONS_VARIABLE = "TSS_RENDERER_OPTIONS"
