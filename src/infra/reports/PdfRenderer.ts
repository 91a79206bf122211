import { type ChildProcess, fork } from "node:child_process"
import { NodeWorker } from "@effect/platform-node"
import { RpcClient, type RpcClientError, type RpcGroup } from "@effect/rpc"
import { Context, Deferred, Duration, Effect, ExecutionStrategy, Exit, Layer, Option, Scope } from "effect"
import { AppConfig } from "../config/AppConfig.js"
import { projectFile } from "../config/ProjectFiles.js"
import { RENDERER_OPTIONS_VARIABLE, RendererRpcs, RenderFailed } from "./RendererRpc.js"

/** One report page as the template made it: the HTML and the footer template (page numbers). */
export interface PdfPage {
  readonly html: string
  readonly footerHtml: string
}

/** Where a PDF is rendered: the worker's handle on its renderer actor. */
export class PdfRenderer extends Context.Tag("PdfRenderer")<
  PdfRenderer,
  {
    readonly render: (page: PdfPage) => Effect.Effect<Uint8Array, RenderFailed>
    /** The renderer process and its browser, when running (operations and the recovery tests). */
    readonly rendererPid: Effect.Effect<Option.Option<number>>
    readonly browserPid: Effect.Effect<Option.Option<number>>
  }
>() {}

export interface RendererProcessOptions {
  readonly chromiumPath: Option.Option<string>
  /** Renders at once (pages of the one browser). */
  readonly concurrency: number
  /** A render's budget inside the renderer; the worker waits this plus a margin before giving the process up. */
  readonly renderTimeout: Duration.Duration
  /** URL prefixes a page may fetch besides `data:` URLs (tests of slow pages); none by default. */
  readonly allowedRequestPrefixes?: ReadonlyArray<string>
}

/** The renderer's own process: from the TypeScript source under tsx, or from its bundle under `npm start`. */
const spawnRenderer = (options: RendererProcessOptions): ChildProcess => {
  const fromSource = import.meta.url.endsWith(".ts")
  const env = {
    ...process.env,
    [RENDERER_OPTIONS_VARIABLE]: JSON.stringify({
      chromiumPath: Option.getOrNull(options.chromiumPath),
      concurrency: options.concurrency,
      allowedRequestPrefixes: options.allowedRequestPrefixes ?? []
    })
  }
  return fork(projectFile(fromSource ? "src/bin/renderer.ts" : "src/bin/launch.mjs"), fromSource ? [] : ["renderer"], {
    execArgv: fromSource ? ["--import", "tsx"] : [],
    // Structured clone, so the PDF's bytes cross as a Uint8Array.
    serialization: "advanced",
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env
  })
}

/** Starting a renderer (forking it under tsx on a busy machine is slow) may take this long. */
const START_TIMEOUT = Duration.minutes(2)

interface Generation {
  readonly scope: Scope.CloseableScope
  readonly child: ChildProcess
  readonly client: RpcClient.RpcClient<RpcGroup.Rpcs<typeof RendererRpcs>, RpcClientError.RpcClientError>
  exited: boolean
}

/** The process did not answer or went away: distinct from a render the renderer itself refused. */
class RendererLost {
  readonly _tag = "RendererLost"
  constructor(readonly message: string) {}
}

/**
 * The renderer actor: a child process (src/bin/renderer.ts) that keeps one warm Chromium, driven
 * through the typed @effect/rpc messages of RendererRpcs over its IPC channel. A process that dies
 * or stops answering is killed (its Chromium, attached by a pipe, goes with it) and the next render
 * starts another, so a hung browser costs one failed attempt of one job, never the worker.
 */
export const RendererProcessLive = (options: RendererProcessOptions) =>
  Layer.scoped(
    PdfRenderer,
    Effect.gen(function* () {
      const outer = yield* Effect.scope
      const slots = yield* Effect.makeSemaphore(options.concurrency)
      const lock = yield* Effect.makeSemaphore(1)
      let current: Generation | undefined

      const discard = (generation: Generation) =>
        Effect.suspend(() => {
          if (current === generation) current = undefined
          generation.child.kill("SIGKILL")
          return Scope.close(generation.scope, Exit.void)
        })

      const start = Effect.gen(function* () {
        const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
        let child: ChildProcess | undefined
        // A process that dies before it is ready would leave the protocol waiting forever.
        const exitedEarly = yield* Deferred.make<never, RendererLost>()
        const protocol = RpcClient.layerProtocolWorker({ size: 1, concurrency: options.concurrency }).pipe(
          Layer.provide(
            NodeWorker.layerPlatform(() => {
              child = spawnRenderer(options)
              child.once("exit", (code, signal) =>
                Deferred.unsafeDone(
                  exitedEarly,
                  Exit.fail(new RendererLost(`exited (${signal ?? code}) while starting`))
                )
              )
              return child
            })
          )
        )
        const build = Layer.buildWithScope(protocol, scope).pipe(
          Effect.flatMap((context) => RpcClient.make(RendererRpcs).pipe(Effect.provide(context), Scope.extend(scope)))
        )
        // The protocol's start-up wait is not interruptible: disconnected, so a timeout or an early exit
        // answers at once, and the abandoned start is torn down in the background.
        const built = yield* Effect.raceFirst(Effect.disconnect(build), Deferred.await(exitedEarly)).pipe(
          Effect.timeoutFail({
            duration: START_TIMEOUT,
            onTimeout: () =>
              new RendererLost(`the renderer process did not start within ${Duration.format(START_TIMEOUT)}`)
          }),
          Effect.catchAll((error) =>
            Effect.zipRight(
              Effect.sync(() => child?.kill("SIGKILL")).pipe(
                Effect.zipRight(Effect.forkDaemon(Scope.close(scope, Exit.void)))
              ),
              Effect.fail(error instanceof RendererLost ? error : new RendererLost(String(error)))
            )
          )
        )
        const generation: Generation = { scope, child: child!, client: built, exited: false }
        child!.once("exit", () => {
          generation.exited = true
        })
        yield* Effect.logInfo(`Renderer process started (pid ${child!.pid})`)
        return generation
      })

      const generation = lock.withPermits(1)(
        Effect.suspend(() => {
          const live = current
          if (live !== undefined && !live.exited) return Effect.succeed(live)
          return Effect.zipRight(
            live === undefined ? Effect.void : discard(live),
            Effect.tap(start, (started) =>
              Effect.sync(() => {
                current = started
              })
            )
          )
        })
      )

      const waitFor = Duration.sum(options.renderTimeout, Duration.seconds(5))

      const render = (page: PdfPage) =>
        slots.withPermits(1)(
          Effect.gen(function* () {
            const live = yield* generation
            return yield* live.client
              .RenderPdf({ ...page, timeoutMillis: Duration.toMillis(options.renderTimeout) })
              .pipe(
                Effect.timeoutFail({
                  duration: waitFor,
                  onTimeout: () => new RendererLost(`no answer within ${Duration.format(waitFor)}`)
                }),
                Effect.catchTag("RpcClientError", (error) => Effect.fail(new RendererLost(error.message))),
                Effect.tapError((error) =>
                  error instanceof RendererLost
                    ? Effect.zipRight(
                        Effect.logWarning(`Renderer process ${live.child.pid} lost (${error.message}); restarting it`),
                        lock.withPermits(1)(discard(live))
                      )
                    : Effect.void
                )
              )
          }).pipe(
            Effect.mapError((error) =>
              error instanceof RendererLost ? new RenderFailed({ message: `renderer lost: ${error.message}` }) : error
            )
          )
        )

      return {
        render,
        rendererPid: Effect.sync(() => Option.fromNullable(current?.exited === false ? current.child.pid : undefined)),
        browserPid: Effect.suspend(() =>
          current === undefined || current.exited
            ? Effect.succeedNone
            : current.client.BrowserPid(undefined).pipe(Effect.orElseSucceed(() => Option.none<number>()))
        )
      }
    })
  )

/** `REPORT_RENDER_TIMEOUT_SECONDS`-style knobs stay in code: 30 s per render, 2 at once (the machine's cores). */
export const RENDER_TIMEOUT = Duration.seconds(30)
export const RENDER_CONCURRENCY = 2

/** The renderer as a worker runs it: CHROMIUM_PATH from the configuration. */
export const PdfRendererLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    RendererProcessLive({
      chromiumPath: config.chromiumPath,
      concurrency: RENDER_CONCURRENCY,
      renderTimeout: RENDER_TIMEOUT
    })
  )
)
