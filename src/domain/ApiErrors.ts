import { Schema } from "effect"
import { DateTimeString } from "./Timestamps.js"

/**
 * The API's error vocabulary: every error code a client can receive, each declared once as a class
 * whose tag is the code and whose `status` is its HTTP status. The body on the wire is
 * `{statusCode, code, message}` plus the class's other fields (see http/WireErrors.ts). Endpoints
 * list the classes they can fail with, so the OpenAPI document names each route's codes.
 * Import as a namespace (`import * as ApiError`): several names match domain failures they answer.
 */

/** One offending input: its dotted path (empty for the whole body) and what is wrong with it. */
export const ErrorDetail = Schema.Struct({ path: Schema.String, message: Schema.String })

const Details = Schema.Array(ErrorDetail)
const OptionalDetails = Schema.optionalWith(Details, { exact: true })

/** Declares one error code: the class tagged `code`, with `message` and `fields`, answered with `status`. */
const declare =
  <Self>() =>
  <const Code extends string, const Status extends number, Fields extends Schema.Struct.Fields = {}>(
    code: Code,
    status: Status,
    fields?: Fields
  ) => {
    // The cast only resolves TaggedError's "missing Self" check, which cannot see through a type parameter.
    const Base = Schema.TaggedError<Self>()(code, {
      message: Schema.String,
      ...(fields as Fields)
    }) as unknown as Schema.TaggedErrorClass<
      Self,
      Code,
      { readonly _tag: Schema.tag<Code>; readonly message: typeof Schema.String } & Fields
    >
    return Object.assign(Base, { status })
  }

/** What an error class of this vocabulary offers the wire encoder. */
export type ApiErrorClass = Schema.Schema<any, any, never> & {
  readonly _tag: string
  readonly status: number
  readonly fields: Schema.Struct.Fields
  new (args: any): any
}

// 400: the request cannot be served as sent.
export class ValidationError extends declare<ValidationError>()("VALIDATION_ERROR", 400, {
  details: OptionalDetails
}) {}
export class InvalidCursor extends declare<InvalidCursor>()("INVALID_CURSOR", 400, { details: Details }) {}
/** Spec 7: export range `to - from` over 90 days. */
export class DateRangeExceeded extends declare<DateRangeExceeded>()("DATE_RANGE_EXCEEDED", 400, {
  details: Details
}) {}
/** Spec 7: export `limit` over 1000. */
export class LimitExceeded extends declare<LimitExceeded>()("LIMIT_EXCEEDED", 400, { details: Details }) {}

// 401: the key API's key (spec 5).
export class ApiKeyMissing extends declare<ApiKeyMissing>()("API_KEY_MISSING", 401) {}
export class ApiKeyInvalid extends declare<ApiKeyInvalid>()("API_KEY_INVALID", 401) {}
export class ApiKeyRevoked extends declare<ApiKeyRevoked>()("API_KEY_REVOKED", 401) {}

// 401: the account API's login, access and refresh tokens.
export class InvalidCredentials extends declare<InvalidCredentials>()("INVALID_CREDENTIALS", 401) {}
export class AccessTokenMissing extends declare<AccessTokenMissing>()("ACCESS_TOKEN_MISSING", 401) {}
export class AccessTokenInvalid extends declare<AccessTokenInvalid>()("ACCESS_TOKEN_INVALID", 401) {}
export class AccessTokenExpired extends declare<AccessTokenExpired>()("ACCESS_TOKEN_EXPIRED", 401) {}
export class RefreshTokenInvalid extends declare<RefreshTokenInvalid>()("REFRESH_TOKEN_INVALID", 401) {}
export class RefreshTokenExpired extends declare<RefreshTokenExpired>()("REFRESH_TOKEN_EXPIRED", 401) {}
export class RefreshTokenReused extends declare<RefreshTokenReused>()("REFRESH_TOKEN_REUSED", 401) {}
export class SessionRevoked extends declare<SessionRevoked>()("SESSION_REVOKED", 401) {}

/** 402, spec 7: the balance is below the cost of the operation. */
export class ApiCreditsExhausted extends declare<ApiCreditsExhausted>()("API_CREDITS_EXHAUSTED", 402, {
  credits_remaining: Schema.Int,
  credits_required: Schema.Int,
  period_ends_at: DateTimeString
}) {}

// 403: the caller may not do this.
export class PlanUpgradeRequired extends declare<PlanUpgradeRequired>()("PLAN_UPGRADE_REQUIRED", 403) {}
export class CompanyAccessDenied extends declare<CompanyAccessDenied>()("COMPANY_ACCESS_DENIED", 403) {}
export class WatchlistLimitReached extends declare<WatchlistLimitReached>()("WATCHLIST_LIMIT_REACHED", 403) {}

/** 404: no such route, or a resource that does not exist or is not the caller's. */
export class NotFound extends declare<NotFound>()("NOT_FOUND", 404) {}

/**
 * 405: a HEAD on a route whose GET charges credits or uses up a download (http/HeadRequests.ts);
 * answered with `Allow: GET`.
 */
export class MethodNotAllowed extends declare<MethodNotAllowed>()("METHOD_NOT_ALLOWED", 405) {}

/** 408: the request's head or body did not arrive within node's request timeout. */
export class RequestTimeout extends declare<RequestTimeout>()("REQUEST_TIMEOUT", 408) {}

/** 409: the resource's current state does not allow this (a manual retry of a delivery that is not `failed`). */
export class DeliveryNotRetryable extends declare<DeliveryNotRetryable>()("DELIVERY_NOT_RETRYABLE", 409) {}

/** 409: a report's download URL asked for before the job is `completed` (spec 7: "not shown"; ours). */
export class ReportNotReady extends declare<ReportNotReady>()("REPORT_NOT_READY", 409, {
  status: Schema.Literal("pending", "generating", "failed")
}) {}

/**
 * 409: an `Idempotency-Key` already used, within its 24 hours, for another request (another company
 * or body) of the tenant (ours; spec 4.3 has no idempotency).
 */
export class IdempotencyKeyReused extends declare<IdempotencyKeyReused>()("IDEMPOTENCY_KEY_REUSED", 409) {}

/** 410, spec 7: a download token that expired, was used 3 times, or never existed. */
export class DownloadTokenExpired extends declare<DownloadTokenExpired>()("DOWNLOAD_TOKEN_EXPIRED", 410) {}

/** 422: creating one more would exceed a limit. */
export class ApiKeyLimitExceeded extends declare<ApiKeyLimitExceeded>()("API_KEY_LIMIT_EXCEEDED", 422) {}
/** Spec 7: 5 active webhooks already exist in the tenant. */
export class WebhookLimitExceeded extends declare<WebhookLimitExceeded>()("WEBHOOK_LIMIT_EXCEEDED", 422) {}

// 413, 414, 431: the request is larger than the server reads (src/http/RequestLimits.ts); refused
// before the app sees it, so they are the same on every route.
export class PayloadTooLarge extends declare<PayloadTooLarge>()("PAYLOAD_TOO_LARGE", 413) {}

/**
 * 415: a request body that is not JSON (a form, multipart, text): spec 1, rule 4 makes every request
 * body JSON, and the platform would otherwise read a form's fields as the payload.
 */
export class UnsupportedMediaType extends declare<UnsupportedMediaType>()("UNSUPPORTED_MEDIA_TYPE", 415) {}
export class UriTooLong extends declare<UriTooLong>()("URI_TOO_LONG", 414) {}
export class RequestHeadersTooLarge extends declare<RequestHeadersTooLarge>()("REQUEST_HEADERS_TOO_LARGE", 431) {}

/** 429, spec 7: with a `Retry-After` header carrying the same seconds. */
export class RateLimitExceeded extends declare<RateLimitExceeded>()("RATE_LIMIT_EXCEEDED", 429, {
  retry_after_seconds: Schema.Int
}) {}

/** 500: a defect of ours; the details are in the log. */
export class InternalError extends declare<InternalError>()("INTERNAL_ERROR", 500) {}

/** 503: a dependency (PostgreSQL, Redis) did not answer the readiness check. */
export class ServiceUnavailable extends declare<ServiceUnavailable>()("SERVICE_UNAVAILABLE", 503, {
  details: OptionalDetails
}) {}
