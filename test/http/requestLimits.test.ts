import { request as httpRequest } from "node:http"
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MAX_HEADER_BYTES, MAX_URL_LENGTH, PARSER_MAX_HEADER_SIZE } from "../../src/http/RequestLimits.js"
import { MAX_QUOTED_CHARACTERS, shortenQuotes } from "../../src/http/WireErrors.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

const MB = 1024 * 1024
const LOGIN = "/api/v1/auth/login"

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: any
  /** Body bytes the client had written when the answer came. */
  readonly bytesSent: number
}

/**
 * Streams `totalBytes` of a JSON-looking body to `path` (a string that never ends, so nothing could
 * parse it early), in 64 KiB chunks, honouring backpressure, and stops at the first answer. With
 * `declared` the length is sent as Content-Length, else the body is chunked.
 */
const streamBody = (
  baseUrl: string,
  path: string,
  options: { readonly totalBytes: number; readonly declared: boolean; readonly expectContinue?: boolean }
): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, "a")
    let bytesSent = 0
    let answered = false
    const headers: Record<string, string> = { "content-type": "application/json" }
    if (options.declared) headers["content-length"] = String(options.totalBytes)
    if (options.expectContinue) headers.expect = "100-continue"
    const req = httpRequest(`${baseUrl}${path}`, { method: "POST", headers })
    const write = () => {
      if (bytesSent === 0) {
        req.write('{"email":"')
        bytesSent += 10
      }
      while (!answered && bytesSent < options.totalBytes) {
        const piece = chunk.subarray(0, Math.min(chunk.length, options.totalBytes - bytesSent))
        bytesSent += piece.length
        if (!req.write(piece)) return req.once("drain", write)
      }
      if (!answered) req.end()
    }
    req.on("response", (response) => {
      answered = true
      const parts: Array<Buffer> = []
      response.on("data", (part: Buffer) => parts.push(part))
      response.on("end", () => {
        const text = Buffer.concat(parts).toString("utf8")
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text), bytesSent })
        req.destroy()
      })
    })
    // The server closes the connection after refusing: writes after that fail, which is expected.
    req.on("error", (error) => {
      if (!answered) reject(error)
    })
    if (options.expectContinue) req.on("continue", write)
    else write()
  })

/** Samples this process's memory (the server runs in it) while `work` runs; the peak growth in bytes. */
const peakMemoryGrowth = async <A>(work: () => Promise<A>): Promise<{ result: A; rss: number; heap: number }> => {
  global.gc?.()
  const before = process.memoryUsage()
  let peak = { rss: 0, heap: 0 }
  const sample = () => {
    const now = process.memoryUsage()
    peak = {
      rss: Math.max(peak.rss, now.rss - before.rss),
      heap: Math.max(peak.heap, now.heapUsed + now.arrayBuffers - before.heapUsed - before.arrayBuffers)
    }
  }
  const timer = setInterval(sample, 20)
  try {
    const result = await work()
    sample()
    return { result, ...peak }
  } finally {
    clearInterval(timer)
  }
}

const expectTooLarge = (answer: Answer) => {
  expect(answer.status).toBe(413)
  expect(answer.body).toEqual({
    statusCode: 413,
    code: "PAYLOAD_TOO_LARGE",
    message: `The request body is larger than ${MB} bytes (MAX_BODY_BYTES)`
  })
  expect(answer.headers["content-type"]).toBe("application/json")
  expect(answer.headers.connection).toBe("close")
}

/** Sends raw bytes and returns the raw answer: for heads node's HTTP client would refuse to send. */
const rawExchange = (baseUrl: string, bytes: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(baseUrl)
    const socket = connect(Number(port), hostname)
    const parts: Array<Buffer> = []
    socket.on("data", (part) => parts.push(part))
    socket.on("end", () => resolve(Buffer.concat(parts).toString("utf8")))
    socket.on("error", (error) => (parts.length > 0 ? resolve(Buffer.concat(parts).toString("utf8")) : reject(error)))
    socket.write(bytes)
  })

describe("request limits", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  it.each([
    ["with a declared Content-Length, before reading it", true],
    ["chunked, once it passes the limit", false]
  ])("refuses a 200 MB login body %s, with 413 and memory flat", async (_how, declared) => {
    const { result, rss, heap } = await peakMemoryGrowth(() =>
      streamBody(server.baseUrl, LOGIN, { totalBytes: 200 * MB, declared })
    )
    expectTooLarge(result)
    expect(result.bytesSent).toBeLessThan(200 * MB)
    expect(rss).toBeLessThan(50 * MB)
    expect(heap).toBeLessThan(50 * MB)
  })

  it("refuses a 200 MB body streamed by fetch (undici) with 413 that fetch can read", async () => {
    const chunk = new Uint8Array(64 * 1024)
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 200 * MB) return controller.close()
        sent += chunk.length
        controller.enqueue(chunk)
      }
    })
    const response = await fetch(`${server.baseUrl}${LOGIN}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      duplex: "half"
    } as RequestInit)
    expect(response.status).toBe(413)
    expect(await response.json()).toMatchObject({ statusCode: 413, code: "PAYLOAD_TOO_LARGE" })
    expect(sent).toBeLessThan(200 * MB)
  })

  it("answers `Expect: 100-continue` with a body over the limit with 413, so the body is never sent", async () => {
    const answer = await streamBody(server.baseUrl, LOGIN, {
      totalBytes: 200 * MB,
      declared: true,
      expectContinue: true
    })
    expectTooLarge(answer)
    expect(answer.bytesSent).toBe(0)
  })

  it("serves chunked and declared bodies within the limit as before (the counted body reaches the app whole)", async () => {
    const login = { email: "nobody@example.com", password: "wrong-password" }
    for (const declared of [true, false]) {
      const body = Buffer.from(JSON.stringify(login))
      const answer = await new Promise<{ status: number; body: any }>((resolve, reject) => {
        const headers: Record<string, string> = { "content-type": "application/json" }
        if (declared) headers["content-length"] = String(body.length)
        const req = httpRequest(`${server.baseUrl}${LOGIN}`, { method: "POST", headers }, (response) => {
          const parts: Array<Buffer> = []
          response.on("data", (part: Buffer) => parts.push(part))
          response.on("end", () =>
            resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString()) })
          )
        })
        req.on("error", reject)
        // Two writes: a chunked body arrives in pieces.
        req.write(body.subarray(0, 10))
        setTimeout(() => req.end(body.subarray(10)), 20)
      })
      expect(answer, declared ? "declared" : "chunked").toMatchObject({
        status: 401,
        body: { code: "INVALID_CREDENTIALS" }
      })
    }
  })

  it("answers an empty chunked body like an empty body, instead of waiting for it", async () => {
    const answer = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        `${server.baseUrl}${LOGIN}`,
        { method: "POST", headers: { "content-type": "application/json", "transfer-encoding": "chunked" } },
        (response) => {
          response.resume()
          resolve(response.statusCode ?? 0)
        }
      )
      req.on("error", reject)
      req.end()
    })
    expect(answer).toBe(400)
  })

  it("refuses a 5 MB e-mail with 413 at the default limit", async () => {
    const email = `${"x".repeat(5 * MB)}@example.com`
    const response = await request(`${server.baseUrl}${LOGIN}`, { method: "POST", body: { email, password: "pw" } })
    expect(response.status).toBe(413)
    expect(response.body.code).toBe("PAYLOAD_TOO_LARGE")
  })

  it("answers a URL over the limit with 414 and the uniform body", async () => {
    const response = await request(`${server.baseUrl}/api/v1/tenders?q=${"a".repeat(MAX_URL_LENGTH)}`)
    expect(response.status).toBe(414)
    expect(response.body).toEqual({
      statusCode: 414,
      code: "URI_TOO_LONG",
      message: `The URL is longer than ${MAX_URL_LENGTH} characters`
    })
  })

  it("answers headers over the limit with 431 and the uniform body", async () => {
    const response = await request(`${server.baseUrl}/health`, {
      headers: { "x-padding": "a".repeat(MAX_HEADER_BYTES) }
    })
    expect(response.status).toBe(431)
    expect(response.body).toEqual({
      statusCode: 431,
      code: "REQUEST_HEADERS_TOO_LARGE",
      message: `The request headers are larger than ${MAX_HEADER_BYTES} bytes`
    })
  })

  it("answers a head larger than node's parser reads with 431 and the uniform body, not node's bare status line", async () => {
    const raw = await rawExchange(
      server.baseUrl,
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Padding: ${"a".repeat(PARSER_MAX_HEADER_SIZE)}\r\n\r\n`
    )
    const [head, body] = raw.split("\r\n\r\n")
    expect(head).toMatch(/^HTTP\/1\.1 431 /)
    expect(head).toContain("content-type: application/json")
    expect(JSON.parse(body ?? "")).toMatchObject({ statusCode: 431, code: "REQUEST_HEADERS_TOO_LARGE" })
  })

  it("answers a request node cannot parse with 400 and the uniform body", async () => {
    const raw = await rawExchange(server.baseUrl, "NOT HTTP AT ALL\r\n\r\n")
    const [head, body] = raw.split("\r\n\r\n")
    expect(head).toMatch(/^HTTP\/1\.1 400 /)
    expect(JSON.parse(body ?? "")).toMatchObject({ statusCode: 400, code: "VALIDATION_ERROR" })
  })

  it("carries X-Request-Id on its refusals like every response: the caller's when it is a short token, else a generated one", async () => {
    const tooLarge = await request(`${server.baseUrl}${LOGIN}`, {
      method: "POST",
      headers: { "x-request-id": "limit-413.a" },
      body: { email: `${"x".repeat(2 * MB)}@example.com`, password: "pw" }
    })
    expect(tooLarge.status).toBe(413)
    expect(tooLarge.headers.get("x-request-id")).toBe("limit-413.a")

    const tooLong = await request(`${server.baseUrl}/api/v1/tenders?q=${"a".repeat(MAX_URL_LENGTH)}`, {
      headers: { "x-request-id": `not a token ${"x".repeat(80)}` }
    })
    expect(tooLong.status).toBe(414)
    expect(tooLong.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)

    // Refused before node parsed the request: a generated id in the raw answer.
    const raw = await rawExchange(
      server.baseUrl,
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Request-Id: lost\r\nX-Padding: ${"a".repeat(PARSER_MAX_HEADER_SIZE)}\r\n\r\n`
    )
    const [head] = raw.split("\r\n\r\n")
    expect(head).toMatch(/^HTTP\/1\.1 431 /)
    expect(head).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/)
  })
})

describe("validation errors under a raised body limit (MAX_BODY_BYTES=8 MiB)", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ maxBodyBytes: 8 * MB })
  })
  afterAll(() => server.close())

  it("answer a 5 MB e-mail with a short 400 that quotes only a prefix of it", async () => {
    const email = `${"x".repeat(5 * MB)}@example.com`
    const response = await request(`${server.baseUrl}${LOGIN}`, { method: "POST", body: { email, password: "pw" } })
    expect(response.status).toBe(400)
    expect(response.body.code).toBe("VALIDATION_ERROR")
    expect(response.text.length).toBeLessThan(2_000)
    const detail = response.body.details.find((d: { path: string }) => d.path === "email")
    expect(detail.message).toContain(`"${"x".repeat(64)}…"`)
    expect(response.body.message).toContain(`"${"x".repeat(64)}…"`)
  })
})

describe("a body that is not a JSON object", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  it.each(["[]", "null", '"x"', "7"])(
    "%s is refused with a 400 that says so, not the payload's schema",
    async (body) => {
      const response = await request(`${server.baseUrl}${LOGIN}`, {
        method: "POST",
        body,
        headers: { "content-type": "application/json" }
      })
      expect(response.status).toBe(400)
      expect(response.body.code).toBe("VALIDATION_ERROR")
      expect(response.body.message).toBe(`Invalid request: Expected a JSON object, actual ${body}`)
      expect(response.body.details).toEqual([{ path: "", message: `Expected a JSON object, actual ${body}` }])
    }
  )
})

describe("the quotes of a validation message", () => {
  it("keep a short value whole and cut a long one to its first 64 characters and an ellipsis", () => {
    expect(MAX_QUOTED_CHARACTERS).toBe(64)
    expect(shortenQuotes('Expected a string, actual "short"')).toBe('Expected a string, actual "short"')
    const long = `${"y".repeat(63)}"${"z".repeat(100)}`
    // JSON-quoted as Schema prints it: the inner quote is escaped, and the cut falls inside the escape.
    expect(shortenQuotes(`Expected at most 320, actual ${JSON.stringify(long)}`)).toBe(
      `Expected at most 320, actual "${"y".repeat(63)}…"`
    )
    expect(shortenQuotes(`a ${"w".repeat(2_000)}`)).toHaveLength(501)
  })
})
