import { HttpApi, OpenApi } from "@effect/platform"
import * as ApiError from "../domain/ApiErrors.js"
import { AlertsApi } from "./alerts/AlertsApi.js"
import { AppReportsApi } from "./app/AppReportsApi.js"
import { AppTendersApi } from "./app/AppTendersApi.js"
import { AuthApi } from "./auth/AuthApi.js"
import { CompaniesApi } from "./companies/CompaniesApi.js"
import { CpvApi } from "./cpv/CpvApi.js"
import { CreditsApi } from "./credits/CreditsApi.js"
import { ExportApi } from "./export/ExportApi.js"
import { FeedbackApi } from "./feedback/FeedbackApi.js"
import { documentResponseHeaders } from "./OpenApiHeaders.js"
import { ReportsApi } from "./reports/ReportsApi.js"
import { DigestSettingsApi } from "./settings/DigestSettingsApi.js"
import { SettingsApi } from "./settings/SettingsApi.js"
import { SourcesApi } from "./sources/SourcesApi.js"
import { SystemApi } from "./system/SystemApi.js"
import { TendersApi } from "./tenders/TendersApi.js"
import { DecodeErrorWire, errors } from "./WireErrors.js"
import { WatchlistsApi } from "./watchlists/WatchlistsApi.js"
import { WebhookDashboardApi } from "./webhooks/WebhookDashboardApi.js"
import { WebhooksApi } from "./webhooks/WebhooksApi.js"

/** `HttpApi.make` declares its own decode-error body; swap in the uniform one before adding groups. */
const withUniformErrors = () => {
  const api = HttpApi.make("tender-scoring-service")
  ;(api as { errorSchema: unknown }).errorSchema = DecodeErrorWire
  return api
}

/**
 * The whole HTTP contract; OpenAPI is generated from it. The errors declared here are the ones any
 * request can be answered with: by ErrorMapping (unreadable body, unknown route, defect) and by
 * RequestLimits (a body, URL or headers over their limits); each group and endpoint declares its own.
 */
export class Api extends withUniformErrors()
  .add(SystemApi)
  .add(AuthApi)
  .add(WatchlistsApi)
  .add(CompaniesApi)
  .add(AlertsApi)
  .add(SettingsApi)
  .add(DigestSettingsApi)
  .add(WebhookDashboardApi)
  .add(AppTendersApi)
  .add(AppReportsApi)
  .add(FeedbackApi)
  .add(CpvApi)
  .add(CreditsApi)
  .add(SourcesApi)
  .add(TendersApi)
  .add(ExportApi)
  .add(WebhooksApi)
  .add(ReportsApi)
  .addError(
    errors(
      ApiError.ValidationError,
      ApiError.NotFound,
      ApiError.PayloadTooLarge,
      ApiError.UnsupportedMediaType,
      ApiError.UriTooLong,
      ApiError.RequestHeadersTooLarge,
      ApiError.InternalError,
      ApiError.ServiceUnavailable
    )
  )
  .annotate(OpenApi.Title, "Tender Scoring Service")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(OpenApi.Transform, documentResponseHeaders)
  .annotate(
    OpenApi.Description,
    "Scores Romanian public-procurement tenders for companies (GO / RESEARCH / SKIP). Every error has the body `{statusCode, code, message}` plus optional `details`. Key-authenticated responses carry `X-API-Credits-Cost` and `X-API-Credits-Remaining` headers."
  ) {}
