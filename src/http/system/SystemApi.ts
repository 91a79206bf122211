import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as ApiError from "../../domain/ApiErrors.js"
import { errors } from "../WireErrors.js"

export const Health = Schema.Struct({ status: Schema.Literal("ok") })

export const Readiness = Schema.Struct({
  status: Schema.Literal("ready"),
  checks: Schema.Struct({
    database: Schema.Literal("ok"),
    /** The read replica of the key API's list pages (DATABASE_READ_URL); `none` without one (they read the primary). */
    replica: Schema.Literal("ok", "none"),
    redis: Schema.Literal("ok", "in-process"),
    /**
     * The polled notice sources: a source that is down is `degraded`, and the service stays ready
     * (a source outage is not a service outage).
     */
    sources: Schema.Record({ key: Schema.String, value: Schema.Literal("ok", "degraded") })
  }),
  /** The sources whose last poll failed, with why. */
  degraded: Schema.Array(Schema.Struct({ source: Schema.String, lastError: Schema.NullOr(Schema.String) }))
})

/** Probes for load balancers and orchestrators; no authentication. */
export class SystemApi extends HttpApiGroup.make("system")
  .add(
    HttpApiEndpoint.get("health", "/health")
      .addSuccess(Health)
      .annotate(OpenApi.Summary, "Liveness: the process is up and serving HTTP")
  )
  .add(
    HttpApiEndpoint.get("ready", "/ready")
      .addSuccess(Readiness)
      .addError(errors(ApiError.ServiceUnavailable))
      .annotate(
        OpenApi.Summary,
        "Readiness: PostgreSQL (and its read replica, if any) and Redis answer, else 503; names notice sources that are down"
      )
  )
  .annotate(OpenApi.Description, "Probes for load balancers and orchestrators; no authentication.")
  .annotate(OpenApi.Title, "System") {}
