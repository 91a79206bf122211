import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AccessTokenAuth } from "../AccessTokenAuth.js"
import { StrictBody } from "../Inputs.js"

const DigestHour = Schema.Int.pipe(
  Schema.between(0, 23, { message: () => "must be a whole hour from 0 to 23 (Bucharest time)" })
).annotations({ description: "Hour of the day, Europe/Bucharest (0-23)" })

export const DigestSettings = Schema.Struct({
  enabled: Schema.Boolean,
  hour: DigestHour
})

export const ChangeDigestSettings = Schema.Struct({
  enabled: Schema.Boolean,
  hour: Schema.optionalWith(DigestHour, { exact: true })
})

/** The daily digest e-mail of the signed-in user (an extension of ours), under /api/v1/settings/digest. */
export class DigestSettingsApi extends HttpApiGroup.make("digestSettings")
  .add(
    HttpApiEndpoint.get("getDigest", "/digest")
      .annotate(OpenApi.Summary, "The daily digest e-mail: on or off, and its hour")
      .addSuccess(Schema.Struct({ data: DigestSettings }))
  )
  .add(
    HttpApiEndpoint.put("setDigest", "/digest")
      .annotate(OpenApi.Summary, "Turn the daily digest on or off, at a Bucharest hour")
      .setPayload(StrictBody(ChangeDigestSettings))
      .addSuccess(Schema.Struct({ data: DigestSettings }))
      .annotate(
        OpenApi.Description,
        "`hour` absent keeps the stored hour (8 until one is chosen); it is kept while the digest is off. A value outside 0-23 or not an integer is 400 VALIDATION_ERROR."
      )
  )
  .middleware(AccessTokenAuth)
  .prefix("/api/v1/settings")
  .annotate(
    OpenApi.Description,
    "Per user, every plan. One e-mail a day at the chosen Bucharest hour: new GO tenders per company, GO/RESEARCH tenders closing within 7 days, unread alerts; none on a day with nothing to report."
  )
  .annotate(OpenApi.Title, "Account: daily digest") {}
