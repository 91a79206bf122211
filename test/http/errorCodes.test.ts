import { Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as ApiError from "../../src/domain/ApiErrors.js"
import { wireError } from "../../src/http/WireErrors.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/** The error vocabulary (domain/ApiErrors.ts): one class per code, its wire body, and each route's codes in OpenAPI. */

const classes = (Object.values(ApiError) as Array<unknown>).filter(
  (value): value is ApiError.ApiErrorClass => typeof value === "function" && "status" in value
)

describe("the error vocabulary", () => {
  it("declares each code once, with one status", () => {
    const codes = classes.map((errorClass) => errorClass._tag)
    expect(new Set(codes).size).toBe(codes.length)
    expect(codes).toContain("API_CREDITS_EXHAUSTED")
    for (const errorClass of classes) expect(errorClass.status).toBeGreaterThanOrEqual(400)
  })

  it("encodes to {statusCode, code, message, ...fields} in that order, without _tag", () => {
    const exhausted = new ApiError.ApiCreditsExhausted({
      message: "m",
      credits_remaining: 0,
      credits_required: 2,
      period_ends_at: "2026-12-01T00:00:00+02:00"
    })
    expect(JSON.stringify(Schema.encodeSync(wireError(ApiError.ApiCreditsExhausted))(exhausted))).toBe(
      '{"statusCode":402,"code":"API_CREDITS_EXHAUSTED","message":"m","credits_remaining":0,"credits_required":2,"period_ends_at":"2026-12-01T00:00:00+02:00"}'
    )
    const limited = new ApiError.RateLimitExceeded({ message: "m", retry_after_seconds: 7 })
    expect(JSON.stringify(Schema.encodeSync(wireError(ApiError.RateLimitExceeded))(limited))).toBe(
      '{"statusCode":429,"code":"RATE_LIMIT_EXCEEDED","message":"m","retry_after_seconds":7}'
    )
    // `details` is left out when absent, not written as null.
    const unreadable = new ApiError.ValidationError({ message: "m" })
    expect(JSON.stringify(Schema.encodeSync(wireError(ApiError.ValidationError))(unreadable))).toBe(
      '{"statusCode":400,"code":"VALIDATION_ERROR","message":"m"}'
    )
  })
})

describe("each route's error codes in the served OpenAPI document", () => {
  let server: TestServer
  let spec: any
  beforeAll(async () => {
    server = await startTestServer()
    spec = (await request(`${server.baseUrl}/api/v1/openapi.json`)).body
  })
  afterAll(() => server.close())

  /** The codes documented for `status` of an operation, each from a schema whose statusCode is that status. */
  const codesOf = (path: string, method: string, status: number): Array<string> => {
    const response = spec.paths[path][method].responses[String(status)]
    if (response === undefined) return []
    const schema = response.content["application/json"].schema
    return (schema.anyOf ?? [schema]).flatMap((member: { $ref: string }) => {
      const resolved = spec.components.schemas[member.$ref.split("/").pop() as string]
      expect(resolved.properties.statusCode.enum).toEqual([status])
      return resolved.properties.code.enum
    })
  }

  it("the key API: the key, plan and rate-limit codes, then each endpoint's own", () => {
    const list = ["/api/v1/tenders", "get"] as const
    expect(codesOf(...list, 400).sort()).toEqual(["INVALID_CURSOR", "VALIDATION_ERROR", "VALIDATION_ERROR"])
    expect(codesOf(...list, 401).sort()).toEqual(["API_KEY_INVALID", "API_KEY_MISSING", "API_KEY_REVOKED"])
    expect(codesOf(...list, 402)).toEqual(["API_CREDITS_EXHAUSTED"])
    expect(codesOf(...list, 403).sort()).toEqual(["COMPANY_ACCESS_DENIED", "PLAN_UPGRADE_REQUIRED"])
    expect(codesOf(...list, 429)).toEqual(["RATE_LIMIT_EXCEEDED"])

    const exportTenders = ["/api/v1/export/tenders", "get"] as const
    expect(new Set(codesOf(...exportTenders, 400))).toEqual(
      new Set(["VALIDATION_ERROR", "DATE_RANGE_EXCEEDED", "LIMIT_EXCEEDED", "INVALID_CURSOR"])
    )
    expect(codesOf("/api/v1/tenders/{id}/score", "get", 400)).not.toContain("INVALID_CURSOR")

    // A HEAD where the GET is charged, counted or issues a token (src/http/HeadRequests.ts), and nowhere else.
    for (const path of [
      "/api/v1/tenders",
      "/api/v1/tenders/{id}/score",
      "/api/v1/export/tenders",
      "/api/v1/reports/jobs/{jobId}/download",
      "/api/v1/reports/download/{token}"
    ]) {
      expect(codesOf(path, "get", 405)).toEqual(["METHOD_NOT_ALLOWED"])
    }
    expect(codesOf("/api/v1/webhooks", "get", 405)).toEqual([])
  })

  it("the account API: token codes per route and each endpoint's own", () => {
    expect(codesOf("/api/v1/auth/login", "post", 401)).toEqual(["INVALID_CREDENTIALS"])
    expect(codesOf("/api/v1/auth/login", "post", 429)).toEqual(["RATE_LIMIT_EXCEEDED"])
    expect(codesOf("/api/v1/auth/refresh", "post", 401).sort()).toEqual([
      "REFRESH_TOKEN_EXPIRED",
      "REFRESH_TOKEN_INVALID",
      "REFRESH_TOKEN_REUSED",
      "SESSION_REVOKED"
    ])
    expect(codesOf("/api/v1/watchlists", "post", 401).sort()).toEqual([
      "ACCESS_TOKEN_EXPIRED",
      "ACCESS_TOKEN_INVALID",
      "ACCESS_TOKEN_MISSING",
      "SESSION_REVOKED"
    ])
    expect(codesOf("/api/v1/watchlists", "post", 403)).toEqual(["WATCHLIST_LIMIT_REACHED"])
    expect(codesOf("/api/v1/companies", "get", 403)).toEqual(["PLAN_UPGRADE_REQUIRED"])
    expect(codesOf("/api/v1/settings/api-keys", "post", 422)).toEqual(["API_KEY_LIMIT_EXCEEDED"])
    expect(codesOf("/api/v1/settings/api-keys", "post", 403)).toEqual(["PLAN_UPGRADE_REQUIRED"])
    // Listing and revoking work on every plan (a key must stay revocable after a downgrade).
    expect(codesOf("/api/v1/settings/api-keys", "get", 403)).toEqual([])
    expect(codesOf("/api/v1/settings/api-keys/{id}", "delete", 403)).toEqual([])
    expect(codesOf("/ready", "get", 503)).toEqual(["SERVICE_UNAVAILABLE"])
  })

  it("the browser app's routes: token codes, plan codes where the plan matters, and their own", () => {
    const tokenCodes = ["ACCESS_TOKEN_EXPIRED", "ACCESS_TOKEN_INVALID", "ACCESS_TOKEN_MISSING", "SESSION_REVOKED"]
    const appList = ["/api/v1/app/companies/{companyId}/tenders", "get"] as const
    expect(codesOf(...appList, 401).sort()).toEqual(tokenCodes)
    expect(new Set(codesOf(...appList, 400))).toEqual(new Set(["VALIDATION_ERROR", "INVALID_CURSOR"]))
    expect(codesOf(...appList, 404)).toContain("NOT_FOUND")
    expect(codesOf(...appList, 403)).toEqual([])
    expect(codesOf(...appList, 402)).toEqual([])
    expect(codesOf("/api/v1/app/companies/{companyId}/tenders/{tenderId}", "get", 404)).toContain("NOT_FOUND")
    expect(codesOf("/api/v1/cpv", "get", 401).sort()).toEqual(tokenCodes)
    expect(codesOf("/api/v1/cpv", "get", 400)).toContain("VALIDATION_ERROR")
    expect(codesOf("/api/v1/companies", "post", 403)).toEqual(["PLAN_UPGRADE_REQUIRED"])
    expect(codesOf("/api/v1/companies", "post", 400)).toContain("VALIDATION_ERROR")
    expect(codesOf("/api/v1/companies/{id}", "delete", 404)).toContain("NOT_FOUND")
    expect(codesOf("/api/v1/settings/credits", "get", 403)).toEqual(["PLAN_UPGRADE_REQUIRED"])
    expect(codesOf("/api/v1/settings/webhooks", "post", 422)).toEqual(["WEBHOOK_LIMIT_EXCEEDED"])
    expect(codesOf("/api/v1/settings/webhooks/{id}", "delete", 404)).toContain("NOT_FOUND")
  })

  it("webhooks: registration (key API) and the dashboard (access token)", () => {
    expect(codesOf("/api/v1/webhooks", "post", 422)).toEqual(["WEBHOOK_LIMIT_EXCEEDED"])
    expect(codesOf("/api/v1/webhooks", "post", 403)).toEqual(["PLAN_UPGRADE_REQUIRED"])
    expect(codesOf("/api/v1/webhooks", "post", 400)).toContain("VALIDATION_ERROR")
    expect(codesOf("/api/v1/webhooks", "get", 429)).toEqual(["RATE_LIMIT_EXCEEDED"])
    expect(codesOf("/api/v1/webhooks", "get", 401).sort()).toEqual([
      "API_KEY_INVALID",
      "API_KEY_MISSING",
      "API_KEY_REVOKED"
    ])
    expect(codesOf("/api/v1/webhooks/{id}", "delete", 404)).toContain("NOT_FOUND")
    const retry = ["/api/v1/settings/webhooks/deliveries/{deliveryId}/retry", "post"] as const
    expect(codesOf(...retry, 409)).toEqual(["DELIVERY_NOT_RETRYABLE"])
    expect(codesOf(...retry, 404)).toContain("NOT_FOUND")
    expect(codesOf(...retry, 403)).toEqual(["PLAN_UPGRADE_REQUIRED"])
    expect(codesOf("/api/v1/settings/webhooks", "post", 403)).toEqual(["PLAN_UPGRADE_REQUIRED"])
    // Listing and deleting work on every plan (after a downgrade too).
    expect(codesOf("/api/v1/settings/webhooks", "get", 403)).toEqual([])
    expect(codesOf("/api/v1/settings/webhooks/{id}", "delete", 403)).toEqual([])
    expect(codesOf("/api/v1/settings/webhooks", "get", 401)).toContain("ACCESS_TOKEN_MISSING")
  })

  it("PDF reports: creation, job status, download URL and the unauthenticated download", () => {
    const create = ["/api/v1/reports/{companyId}/pdf", "post"] as const
    expect(codesOf(...create, 402)).toEqual(["API_CREDITS_EXHAUSTED"])
    expect(codesOf(...create, 403).sort()).toEqual(["COMPANY_ACCESS_DENIED", "PLAN_UPGRADE_REQUIRED"])
    expect(codesOf(...create, 429)).toEqual(["RATE_LIMIT_EXCEEDED"])
    expect(codesOf(...create, 400)).toContain("VALIDATION_ERROR")
    // The optional Idempotency-Key (ours): its header parameter, its 409 and the replay's header, on both creations.
    for (const [path, method] of [create, ["/api/v1/app/companies/{companyId}/reports", "post"] as const]) {
      expect(codesOf(path, method, 409)).toEqual(["IDEMPOTENCY_KEY_REUSED"])
      const operation = spec.paths[path][method]
      expect(operation.parameters.find((p: { in: string }) => p.in === "header")).toMatchObject({
        name: "idempotency-key",
        in: "header",
        required: false,
        schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[ -~]{1,255}$" }
      })
      expect(operation.responses["202"].headers["Idempotent-Replayed"]).toMatchObject({ required: false })
    }
    expect(codesOf("/api/v1/reports/jobs/{jobId}/status", "get", 404)).toContain("NOT_FOUND")
    const downloadUrl = ["/api/v1/reports/jobs/{jobId}/download", "get"] as const
    expect(codesOf(...downloadUrl, 409)).toEqual(["REPORT_NOT_READY"])
    expect(codesOf(...downloadUrl, 401).sort()).toEqual(["API_KEY_INVALID", "API_KEY_MISSING", "API_KEY_REVOKED"])
    const download = ["/api/v1/reports/download/{token}", "get"] as const
    expect(codesOf(...download, 410)).toEqual(["DOWNLOAD_TOKEN_EXPIRED"])
    expect(codesOf(...download, 401)).toEqual([])
    expect(spec.paths["/api/v1/reports/download/{token}"].get.security ?? []).toEqual([])
    expect(Object.keys(spec.paths["/api/v1/reports/download/{token}"].get.responses["200"].content)).toEqual([
      "application/pdf"
    ])
  })
})
