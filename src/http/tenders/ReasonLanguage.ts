import { HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect, Schema } from "effect"
import { reasonLanguageFor } from "../../domain/AcceptLanguage.js"
import type { ReasonLanguage } from "../../domain/scoring/Reasons.js"

/**
 * The score answer's reasons follow `Accept-Language` (English by default, Romanian when preferred;
 * domain/AcceptLanguage.ts). Declared as the endpoint's headers so OpenAPI shows it; any value
 * decodes (an unknown or malformed one means English, never a 400).
 */
export const ReasonLanguageHeaders = Schema.Struct({
  "accept-language": Schema.optionalWith(
    Schema.String.annotations({
      description:
        "Language of the factors' `reason` sentences: `ro` (or `ro-RO`) when preferred over `en` by q-value gives Romanian; anything else, or no header, English. The answer says which in `Content-Language`.",
      examples: ["ro", "ro-RO,ro;q=0.9,en;q=0.8"]
    }),
    { exact: true }
  )
})

/** `Accept-Language` joined to a Vary that may already name other headers (CORS adds Origin). */
const varyOnAcceptLanguage = (response: HttpServerResponse.HttpServerResponse) => {
  const current = response.headers.vary
  if (current === undefined || current.trim() === "") {
    return HttpServerResponse.setHeader(response, "vary", "Accept-Language")
  }
  const named = current.split(",").map((part) => part.trim().toLowerCase())
  if (named.includes("accept-language") || named.includes("*")) return response
  return HttpServerResponse.setHeader(response, "vary", `${current}, Accept-Language`)
}

/**
 * The language for this request's reasons. Every answer of the route then says `Vary:
 * Accept-Language` (a cache must not serve one language for another); a success also says
 * `Content-Language`, the language its reasons are in.
 */
export const negotiateReasonLanguage = (header: string | undefined): Effect.Effect<ReasonLanguage> => {
  const language = reasonLanguageFor(header)
  return Effect.as(
    HttpApp.appendPreResponseHandler((_request, response) => {
      const varied = varyOnAcceptLanguage(response)
      return Effect.succeed(
        response.status < 300 ? HttpServerResponse.setHeader(varied, "content-language", language) : varied
      )
    }),
    language
  )
}
