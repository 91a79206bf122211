import { HttpApiBuilder, HttpMiddleware, HttpRouter, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { AppConfig, type AppConfigShape, InvalidConfiguration } from "../infra/config/AppConfig.js"
import { Api } from "./Api.js"
import { AlertsHttpLive } from "./alerts/AlertsHttp.js"
import { AppReportsHttpLive } from "./app/AppReportsHttp.js"
import { AppTendersHttpLive } from "./app/AppTendersHttp.js"
import { AuthHttpLive } from "./auth/AuthHttp.js"
import { CompaniesHttpLive } from "./companies/CompaniesHttp.js"
import { CpvHttpLive } from "./cpv/CpvHttp.js"
import { CreditsHttpLive } from "./credits/CreditsHttp.js"
import { DocsPageLive } from "./DocsPage.js"
import { drainOnClose } from "./Draining.js"
import { createServerHoldingEarlyRequests } from "./EarlyRequests.js"
import { ErrorMappingLive } from "./ErrorMapping.js"
import { ExportLive } from "./export/ExportHttp.js"
import { FeedbackHttpLive } from "./feedback/FeedbackHttp.js"
import { OpenApiDocumentLive } from "./OpenApiDocument.js"
import { limitRequests, PARSER_MAX_HEADER_SIZE, REQUEST_ARRIVAL_LIMITS, ROUTER_CONFIG } from "./RequestLimits.js"
import { observeRequests, serverReports } from "./RequestObservability.js"
import { RouteTemplatesLive } from "./RouteTemplates.js"
import { ReportsLive } from "./reports/ReportsHttp.js"
import { SecurityHeadersLive } from "./SecurityHeaders.js"
import type { ServerReports } from "./ServerAnswers.js"
import { DigestSettingsHttpLive } from "./settings/DigestSettingsHttp.js"
import { SettingsHttpLive } from "./settings/SettingsHttp.js"
import { SourcesHttpLive } from "./sources/SourcesHttp.js"
import { SystemHttpLive } from "./system/SystemHttp.js"
import { TendersLive } from "./tenders/TendersHttp.js"
import { WatchlistsHttpLive } from "./watchlists/WatchlistsHttp.js"
import { WebAppLive } from "./web/WebApp.js"
import { WebhookDashboardHttpLive } from "./webhooks/WebhookDashboardHttp.js"
import { WebhooksLive } from "./webhooks/WebhooksHttp.js"

/**
 * The account API of the browser app (access tokens): auth, watchlists, companies, alerts, settings
 * (API keys, daily digest), webhook dashboard, the app's scored tenders, CPV search and credits.
 */
const AccountHttpLive = Layer.mergeAll(
  AuthHttpLive,
  WatchlistsHttpLive,
  CompaniesHttpLive,
  AlertsHttpLive,
  SettingsHttpLive,
  DigestSettingsHttpLive,
  WebhookDashboardHttpLive,
  AppTendersHttpLive,
  AppReportsHttpLive,
  FeedbackHttpLive,
  CpvHttpLive,
  CreditsHttpLive,
  SourcesHttpLive
)

/** The API with every group's handlers, the docs pages and the error mapping. */
export const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide([SystemHttpLive, AccountHttpLive, TendersLive, ExportLive, WebhooksLive, ReportsLive])
)

export const RoutesLive = Layer.mergeAll(
  DocsPageLive,
  OpenApiDocumentLive,
  WebAppLive,
  ErrorMappingLive,
  // nosniff, Referrer-Policy, no-store on token routes, CORS: on every response (src/http/SecurityHeaders.ts).
  // The route templates are the same service as the request middleware's (layers are memoized).
  SecurityHeadersLive.pipe(Layer.provide(RouteTemplatesLive))
).pipe(Layer.provideMerge(ApiLive))

/**
 * The node:http server the API runs on: requests over the limits are refused before the app sees
 * them, and it drains on shutdown (Draining.ts). `reports` logs and counts what it answers itself.
 */
export const createApiServer = (config: Pick<AppConfigShape, "maxBodyBytes">, reports?: ServerReports) =>
  limitRequests(
    drainOnClose(
      createServerHoldingEarlyRequests({ maxHeaderSize: PARSER_MAX_HEADER_SIZE, ...REQUEST_ARRIVAL_LIMITS }),
      { reports }
    ),
    { maxBodyBytes: config.maxBodyBytes },
    reports
  )

/**
 * The server's app: the API with its routes, behind the request middleware (id, metrics, log line,
 * server span, the response decorations). The test server serves this same app. The platform's own
 * server span is switched off: it records the raw URL, and a report download's path is its token
 * (ServerSpan.ts makes the span instead, with the route template, only when traces are exported;
 * without an exporter the platform's span was pure cost, ~5% of the key API's throughput).
 */
export const ServeLive = HttpApiBuilder.serve(observeRequests).pipe(
  Layer.provide(RoutesLive),
  Layer.provide(RouteTemplatesLive),
  Layer.provide(HttpRouter.setRouterConfig(ROUTER_CONFIG)),
  HttpMiddleware.withTracerDisabledWhen(() => true)
)

/** Serves the API over node:http on HOST:PORT. */
export const HttpServerLive = ServeLive.pipe(
  HttpServer.withLogAddress,
  Layer.provide(
    Layer.unwrapEffect(
      Effect.map(Effect.all([AppConfig, serverReports]), ([config, reports]) =>
        NodeHttpServer.layer(() => createApiServer(config, reports), { port: config.port, host: config.host }).pipe(
          // A port taken or a host this machine does not have: one line naming the variables.
          Layer.mapError(
            (error) =>
              new InvalidConfiguration({
                message: `Cannot listen on HOST ${config.host} / PORT ${config.port}: ${listenFailure(error.cause)}`
              })
          )
        )
      )
    )
  )
)

/** The reason node:http could not listen ("listen EADDRINUSE: address already in use 0.0.0.0:3000"). */
const listenFailure = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))
