import { createServer } from "node:http"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { Clock, Duration, Effect, Layer, ManagedRuntime, Option, Schedule } from "effect"
import puppeteer, { type Browser, type Page } from "puppeteer-core"
import { afterAll, beforeAll } from "vitest"
import { type DemoSeedResult, seedDemoAndScore } from "../../../src/demo/seedDemo.js"
import { RoutesLive } from "../../../src/http/Server.js"
import { chromiumLaunchOptions } from "../../../src/infra/browser/Chromium.js"
import { projectFile } from "../../../src/infra/config/ProjectFiles.js"
import { jobHandlers } from "../../../src/workers/handlers.js"
import { WorkerLive } from "../../../src/workers/Worker.js"
import { TestInfraLive } from "../../support/TestServer.js"

/**
 * A clock that tests can move forward: the server reads every time (token expiry, refresh-token
 * lifetime, job times) through Effect's Clock, so moving it past 15 minutes expires the browser's
 * access token for real, without waiting.
 */
export const makeShiftedClock = () => {
  const base = Clock.make()
  let offsetMs = 0
  const millis = () => base.unsafeCurrentTimeMillis() + offsetMs
  const clock: Clock.Clock = {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: millis,
    currentTimeMillis: Effect.sync(millis),
    unsafeCurrentTimeNanos: () => base.unsafeCurrentTimeNanos() + BigInt(offsetMs) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => base.unsafeCurrentTimeNanos() + BigInt(offsetMs) * 1_000_000n),
    sleep: (duration) => base.sleep(duration)
  }
  return {
    clock,
    advance: (duration: Duration.DurationInput) => {
      offsetMs += Duration.toMillis(duration)
    }
  }
}

/**
 * The API process as `npm run api` serves it (API routes and the built app at `/`) plus the job
 * worker, in this test file's fresh database, seeded with the demo data (`npm start`'s first run).
 * The app is served from `dist/web`, built by the test global setup.
 */
export const startAppServer = async () => {
  const shifted = makeShiftedClock()
  const infra = TestInfraLive({ webDir: projectFile("dist/web") })
  const layer = HttpApiBuilder.serve().pipe(
    Layer.provide(RoutesLive),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(WorkerLive({ handlers: jobHandlers, pollEvery: "200 millis" })),
    Layer.provideMerge(infra),
    Layer.provide(Layer.setClock(shifted.clock))
  )
  const runtime = ManagedRuntime.make(layer)
  const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (s) => s.address))
  if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
  const demo: DemoSeedResult = await runtime.runPromise(seedDemoAndScore)
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    demo,
    run: runtime.runPromise,
    /** Runs a query on the app's database: what a test checks the app stored (or sets up beside it). */
    sql: <A>(query: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
      runtime.runPromise(
        Effect.flatMap(SqlClient.SqlClient, (client) => query(client).pipe(Effect.mapError(withCause), Effect.orDie))
      ),
    /** Waits (up to 30 s) until the worker has no job running or due: set-up that writes what jobs write. */
    whenJobsIdle: () => runtime.runPromise(jobsIdle),
    advanceClock: shifted.advance,
    close: () => runtime.dispose()
  }
}

export type AppServer = Awaited<ReturnType<typeof startAppServer>>

/** A failed query's error with PostgreSQL's own reason and SQLSTATE (a SqlError's message alone says only "Failed to execute statement"). */
const withCause = (error: unknown) => {
  const cause = (error as { cause?: { message?: string; code?: string } }).cause
  const message = error instanceof Error ? error.message : String(error)
  return new Error(cause?.message ? `${message}: ${cause.message} (SQLSTATE ${cause.code ?? "?"})` : message)
}

/** The job kinds this server's worker runs (scoring); others (a report's render) wait here for good. */
const workerKinds = jobHandlers.map((handler) => handler.kind.name)

/**
 * No job of the worker's kinds running or due by the app's clock (the worker's own "due": a test may
 * have moved that clock on). Jobs of other kinds are no one's here: waiting for them would only wait out
 * the 30 s.
 */
const jobsIdle = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const now = new Date(yield* Clock.currentTimeMillis)
  const [{ busy }] = yield* sql<{ busy: number }>`
    SELECT count(*)::int AS busy FROM jobs
    WHERE kind IN ${sql.in(workerKinds)} AND (status = 'running' OR (status = 'queued' AND run_at <= ${now}))`
  if (busy > 0) return yield* Effect.fail("busy" as const)
}).pipe(
  Effect.retry({ while: (e) => e === "busy", schedule: Schedule.spaced("100 millis"), times: 300 }),
  Effect.catchAll(() => Effect.void),
  Effect.orDie
)

/** A browser as the app's users have it: Romanian locale (date inputs read dd.mm.yyyy, as the app writes dates). */
export const launchBrowser = async (): Promise<Browser> => {
  const options = await Effect.runPromise(
    chromiumLaunchOptions(Option.fromNullable(process.env.CHROMIUM_PATH || undefined))
  )
  return puppeteer.launch({
    ...options,
    args: [...(options.args ?? []), "--lang=ro-RO"],
    env: { ...process.env, LANG: "ro_RO.UTF-8", LANGUAGE: "ro" }
  })
}

/**
 * The app server (startAppServer) and a Chromium (launchBrowser) for the `describe` that calls this:
 * both started before its tests and closed after them, after the file's own `afterAll` hooks (vitest
 * runs those in reverse order of registration), so the pages a file closes go first. Read `server`
 * and `browser` in tests and hooks, not while the file is collected.
 */
export const appAndBrowser = (): { readonly server: AppServer; readonly browser: Browser } => {
  let server: AppServer | undefined
  let browser: Browser | undefined
  beforeAll(async () => {
    ;[server, browser] = await Promise.all([startAppServer(), launchBrowser()])
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })
  const started = <A>(value: A | undefined): A => {
    if (value === undefined) throw new Error("the app server and browser start in beforeAll")
    return value
  }
  return {
    get server() {
      return started(server)
    },
    get browser() {
      return started(browser)
    }
  }
}

/**
 * A page in its own browser context (own sessionStorage), collecting what a user would never see
 * but a test must: console errors (a CSP refusal lands there) and uncaught exceptions.
 */
export const openPage = async (browser: Browser, viewport = { width: 1280, height: 900 }) => {
  const context = await browser.createBrowserContext()
  const page = await context.newPage()
  await page.setViewport(viewport)
  const problems: Array<string> = []
  page.on("console", (message) => {
    // A 401 answer the app handles (an expired token it refreshes) is logged by Chromium as a failed resource.
    if (message.type() === "error" && !/status of 401/.test(message.text())) problems.push(message.text())
  })
  page.on("pageerror", (error) => problems.push(String(error)))
  return { page, problems, close: () => context.close() }
}

/** Logs in through the form and waits for the companies screen. */
export const logIn = async (page: Page, baseUrl: string, email: string, password: string) => {
  await page.goto(`${baseUrl}/`)
  await page.waitForSelector("[data-testid=login-form]")
  await page.type("input[name=email]", email)
  await page.type("input[name=password]", password)
  await page.click("button[type=submit]")
  await page.waitForSelector("[data-testid=company]")
}

/** Logs the demo user of the app server in (the start of most browser tests). */
export const logInAsDemo = (page: Page, server: AppServer) =>
  logIn(page, server.baseUrl, server.demo.email, server.demo.password)

/** Texts of every element matching `selector`. */
export const texts = (page: Page, selector: string) =>
  page.$$eval(selector, (elements) => elements.map((element) => element.textContent?.trim() ?? ""))

/**
 * Clicks `button` until `shown` appears (5 s a try, 4 tries): a click that lands while a freshly
 * loaded list renders again (its labels arriving) can hit a node that is being replaced.
 */
export const clickUntilShown = async (page: Page, button: string, shown: string) => {
  for (let attempt = 1; ; attempt++) {
    await page.click(button)
    try {
      await page.waitForSelector(shown, { timeout: 5_000 })
      return
    } catch (error) {
      if (attempt === 4) throw error
    }
  }
}
