import type { HttpServerRequest } from "@effect/platform"

/**
 * Every X-Forwarded-For value of a request, in order. Node joins repeated X-Forwarded-For headers
 * into one value with ", ", so this is one entry or none; the list form keeps the rule in
 * domain/TrustProxy independent of that.
 */
export const forwardedFor = (request: HttpServerRequest.HttpServerRequest): ReadonlyArray<string> => {
  const value = request.headers["x-forwarded-for"]
  return value === undefined ? [] : [value]
}
