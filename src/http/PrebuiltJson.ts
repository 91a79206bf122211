import { HttpServerResponse } from "@effect/platform"

/**
 * A JSON answer built by hand on a hot path (the key API's list and export pages; a test decodes
 * each with its response Schema): no Schema encoding, and the string goes to node:http as it is,
 * without the extra UTF-8 copy `HttpServerResponse.unsafeJson` makes through a TextEncoder.
 */
export const prebuiltJson = (body: unknown): HttpServerResponse.HttpServerResponse => {
  const text = JSON.stringify(body)
  return HttpServerResponse.raw(text, { contentType: "application/json", contentLength: Buffer.byteLength(text) })
}
