import { Context, Duration, Effect, Layer, Option } from "effect"
import puppeteer, { type Browser, type Page } from "puppeteer-core"
import { chromiumLaunchOptions } from "../browser/Chromium.js"
import { RenderFailed, type RenderRequest } from "./RendererRpc.js"

/**
 * Chromium through puppeteer-core, inside the renderer process: one warm browser reused across
 * reports, its pages kept for the next render, at most `concurrency` renders at once. A browser that
 * crashed (or was killed) is relaunched by the next render. A render that fails or overruns closes
 * its own page; the browser is killed only when it no longer answers (hung), so the other render in
 * flight on it is not taken down by a page that was merely slow.
 */
export class PuppeteerPdf extends Context.Tag("PuppeteerPdf")<
  PuppeteerPdf,
  {
    readonly render: (request: RenderRequest) => Effect.Effect<Uint8Array, RenderFailed>
    readonly browserPid: Effect.Effect<Option.Option<number>>
  }
>() {}

/** How long a browser has to answer after a failed render before it is taken for hung. */
const HEALTH_CHECK = Duration.seconds(2)

/**
 * A page that renders a report and nothing else: no script runs, and no request leaves it (the report
 * is one self-contained HTML document; `data:` URLs and `allowed` prefixes aside, every fetch is
 * refused). The report's text comes from notices anyone can publish and is escaped (ReportTemplate);
 * this holds even if an escape were ever missed, so a notice could not make the worker fetch an
 * internal URL into a PDF.
 */
const lockedDown = (allowed: ReadonlyArray<string>) => async (page: Page) => {
  await page.setJavaScriptEnabled(false)
  await page.setRequestInterception(true)
  page.on("request", (request) => {
    const url = request.url()
    if (url.startsWith("data:") || allowed.some((prefix) => url.startsWith(prefix))) void request.continue()
    else void request.abort("blockedbyclient")
  })
  return page
}

const failed = (what: string) => (cause: unknown) =>
  new RenderFailed({ message: `${what}: ${cause instanceof Error ? cause.message : String(cause)}` })

export const PuppeteerPdfLive = (options: {
  readonly chromiumPath: Option.Option<string>
  readonly concurrency: number
  /** URL prefixes a page may fetch besides `data:` URLs (tests of slow pages); none in the service. */
  readonly allowedRequestPrefixes?: ReadonlyArray<string>
}) =>
  Layer.scoped(
    PuppeteerPdf,
    Effect.gen(function* () {
      const launchOptions = yield* chromiumLaunchOptions(options.chromiumPath)
      const renders = yield* Effect.makeSemaphore(options.concurrency)
      const launching = yield* Effect.makeSemaphore(1)
      let browser: Browser | undefined
      /** Pages of the current browser between renders (a reused page saves ~50 ms per PDF). */
      let idle: Array<Page> = []

      const kill = (target: Browser) =>
        Effect.sync(() => {
          if (browser === target) {
            browser = undefined
            idle = []
          }
          target.process()?.kill("SIGKILL")
        })

      /** Whether the browser still answers over its pipe: a hung one does not within HEALTH_CHECK. */
      const answers = (target: Browser) =>
        Effect.tryPromise(() => target.version()).pipe(
          Effect.timeout(HEALTH_CHECK),
          Effect.as(true),
          Effect.orElseSucceed(() => false)
        )

      const currentBrowser = launching.withPermits(1)(
        Effect.suspend(() => {
          if (browser?.connected) return Effect.succeed(browser)
          return Effect.tryPromise({
            // Over a pipe: Chromium exits with the renderer process, even one killed with SIGKILL.
            try: () => puppeteer.launch({ ...launchOptions, pipe: true, protocolTimeout: 60_000 }),
            catch: failed("Chromium did not start")
          }).pipe(
            Effect.tap((launched) =>
              Effect.sync(() => {
                browser = launched
                idle = []
                // A crash or a kill: forget it, so the next render launches another.
                launched.on("disconnected", () => {
                  if (browser === launched) {
                    browser = undefined
                    idle = []
                  }
                })
              })
            ),
            Effect.tap((launched) => Effect.logInfo(`Renderer: Chromium started (pid ${launched.process()?.pid})`))
          )
        })
      )

      const renderOn = (target: Browser, request: RenderRequest) =>
        Effect.acquireUseRelease(
          Effect.suspend(() => {
            const page = idle.pop()
            return page !== undefined && !page.isClosed()
              ? Effect.succeed(page)
              : Effect.tryPromise({
                  try: () => target.newPage().then(lockedDown(options.allowedRequestPrefixes ?? [])),
                  catch: failed("no page")
                })
          }),
          (page) =>
            Effect.tryPromise({
              try: async () => {
                await page.setContent(request.html, { waitUntil: "load", timeout: request.timeoutMillis })
                return page.pdf({
                  format: "A4",
                  printBackground: true,
                  displayHeaderFooter: true,
                  headerTemplate: "<span></span>",
                  footerTemplate: request.footerHtml,
                  margin: { top: "14mm", bottom: "16mm", left: "10mm", right: "10mm" },
                  timeout: request.timeoutMillis
                })
              },
              catch: failed("render")
            }),
          (page, exit) =>
            Effect.sync(() => {
              if (exit._tag === "Success" && browser === target && idle.length < options.concurrency) idle.push(page)
              else void page.close().catch(() => undefined)
            })
        )

      const render = (request: RenderRequest) =>
        renders.withPermits(1)(
          Effect.gen(function* () {
            const target = yield* currentBrowser
            return yield* renderOn(target, request).pipe(
              Effect.timeoutFail({
                duration: Duration.millis(request.timeoutMillis),
                onTimeout: () => new RenderFailed({ message: `render timed out after ${request.timeoutMillis} ms` })
              }),
              // Timed out or broken: the page is closed (renderOn); a browser that no longer answers is
              // hung, so it goes and the next render starts another.
              Effect.tapError(() =>
                Effect.flatMap(answers(target), (healthy) =>
                  healthy || !target.connected ? Effect.void : kill(target)
                )
              )
            )
          })
        )

      yield* Effect.addFinalizer(() =>
        Effect.promise(async () => {
          const last = browser
          browser = undefined
          await last?.close().catch(() => last.process()?.kill("SIGKILL"))
        })
      )
      return {
        render,
        browserPid: Effect.sync(() => Option.fromNullable(browser?.connected ? browser.process()?.pid : undefined))
      }
    })
  )
