import { HttpServerResponse } from "@effect/platform"

/**
 * A prebuilt JSON body (already in wire form) sent as text: node:http writes the string itself,
 * where `HttpServerResponse.unsafeJson` first encodes it to bytes in JavaScript. For the hot list
 * path; nothing checks the payload against the endpoint's schema, so a test must decode it.
 */
export const prebuiltJson = (payload: unknown): HttpServerResponse.HttpServerResponse => {
  const text = JSON.stringify(payload)
  return HttpServerResponse.raw(text, { contentType: "application/json", contentLength: Buffer.byteLength(text) })
}
