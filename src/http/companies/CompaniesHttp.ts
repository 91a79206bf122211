import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { type Plan, planRules } from "../../domain/Plan.js"
import { CompanyProfilesRepo } from "../../infra/accounts/CompanyProfilesRepo.js"
import { CurrentAccount } from "../AccessTokenAuth.js"
import { AccessTokenAuthLive } from "../AccessTokenAuthLive.js"
import { Api } from "../Api.js"
import { companyAccessDenied } from "../ApiKeyAuthLive.js"
import { WorkspaceReader } from "../WorkspaceReaderAuth.js"
import { WorkspaceReaderAuthLive } from "../WorkspaceReaderAuthLive.js"

const requireWorkspace = (caller: { readonly tenantId: string; readonly plan: Plan }) =>
  planRules[caller.plan].multiClientWorkspace
    ? Effect.succeed(caller.tenantId)
    : Effect.fail(
        new ApiError.PlanUpgradeRequired({
          message: "Companies are part of the multi-client workspace of the Consultant plan"
        })
      )

/** The tenant of the access token, if its plan has the multi-client workspace. */
const workspaceTenant = Effect.flatMap(CurrentAccount, requireWorkspace)

/** The same for the read-only endpoints, which also take an API key. */
const readerTenant = Effect.flatMap(WorkspaceReader, requireWorkspace)

const notFound = () => new ApiError.NotFound({ message: "No such company" })

export const CompaniesHttpLive = HttpApiBuilder.group(Api, "companies", (handlers) =>
  Effect.gen(function* () {
    const repo = yield* CompanyProfilesRepo
    return handlers
      .handle("list", () =>
        readerTenant.pipe(
          Effect.flatMap(repo.list),
          Effect.map((data) => ({ data }))
        )
      )
      .handle("create", ({ payload }) =>
        workspaceTenant.pipe(
          Effect.flatMap((tenantId) =>
            repo.create({
              tenantId,
              name: payload.name,
              description: payload.description ?? "",
              fiscalCode: payload.fiscalCode ?? null,
              ...(payload.counties === undefined ? {} : { counties: payload.counties })
            })
          ),
          Effect.map((data) => ({ data }))
        )
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const reader = yield* WorkspaceReader
          const tenantId = yield* requireWorkspace(reader)
          const data = yield* repo.get({ tenantId, id: path.id }).pipe(
            // Spec 1, rule 2: to an API key, a company not of its tenant (or none at all) is
            // COMPANY_ACCESS_DENIED, as on every key route; to the browser app, 404 (spec 7).
            Effect.catchTag("CompanyNotFound", () =>
              Effect.fail(reader.via === "apiKey" ? companyAccessDenied() : notFound())
            )
          )
          return { data }
        })
      )
      .handle("update", ({ path, payload }) =>
        workspaceTenant.pipe(
          Effect.flatMap((tenantId) => repo.update({ tenantId, id: path.id, ...payload })),
          Effect.map((data) => ({ data })),
          Effect.catchTag("CompanyNotFound", () => Effect.fail(notFound()))
        )
      )
      .handle("deactivate", ({ path }) =>
        workspaceTenant.pipe(
          Effect.flatMap((tenantId) => repo.update({ tenantId, id: path.id, active: false })),
          Effect.map((data) => ({ data })),
          Effect.catchTag("CompanyNotFound", () => Effect.fail(notFound()))
        )
      )
  })
).pipe(Layer.provide([AccessTokenAuthLive, WorkspaceReaderAuthLive]))
