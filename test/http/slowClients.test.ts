import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { REQUEST_ARRIVAL_LIMITS } from "../../src/http/RequestLimits.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/**
 * Opens a raw connection, writes `head`, then one more `drip` every second, and resolves with the
 * seconds until the server ended the connection (and what it answered), or `undefined` if it still
 * had not after `giveUpSeconds`.
 */
const dripUntilClosed = (
  baseUrl: string,
  head: string,
  drip: string,
  giveUpSeconds: number
): Promise<{ seconds: number; answer: string } | undefined> =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(baseUrl)
    const socket = connect(Number(port), hostname)
    const parts: Array<Buffer> = []
    const started = performance.now()
    let timer: NodeJS.Timeout | undefined
    const finish = (value: { seconds: number; answer: string } | undefined) => {
      clearInterval(timer)
      clearTimeout(giveUp)
      socket.destroy()
      resolve(value)
    }
    const closed = () =>
      finish({ seconds: (performance.now() - started) / 1000, answer: Buffer.concat(parts).toString("utf8") })
    socket.on("data", (part) => parts.push(part))
    socket.on("end", closed)
    socket.on("close", closed)
    socket.on("error", closed)
    const giveUp = setTimeout(() => finish(undefined), giveUpSeconds * 1000)
    socket.on("connect", () => {
      socket.write(head)
      timer = setInterval(() => {
        if (!socket.destroyed) socket.write(drip)
      }, 1000)
    })
  })

describe("slow clients (slowloris) are cut off", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  // With node's defaults (headersTimeout 60 s checked every 30 s, requestTimeout 5 minutes) a client
  // trickling its head or body held a socket (a file descriptor) for minutes before authentication.
  const { headersTimeout, requestTimeout, connectionsCheckingInterval } = REQUEST_ARRIVAL_LIMITS
  const late = (timeout: number) => (timeout + connectionsCheckingInterval) / 1000 + 2
  it.concurrent("a request head trickled one header a second is cut off at the headers timeout (408)", async () => {
    const outcome = await dripUntilClosed(
      server.baseUrl,
      "GET /health HTTP/1.1\r\nHost: localhost\r\n",
      "X-Drip: 1\r\n",
      25
    )
    expect(outcome, "the server still held the connection after 25 s").toBeDefined()
    expect(outcome!.seconds).toBeLessThanOrEqual(late(headersTimeout))
    expect(outcome!.answer).toMatch(/^HTTP\/1\.1 408/)
  }, 40_000)

  it.concurrent("an unauthenticated body trickled one byte a second is cut off at the request timeout (408)", async () => {
    const outcome = await dripUntilClosed(
      server.baseUrl,
      "POST /api/v1/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{",
      " ",
      40
    )
    expect(outcome, "the server still held the connection (and its partial body) after 40 s").toBeDefined()
    expect(outcome!.seconds).toBeLessThanOrEqual(late(requestTimeout))
    expect(outcome!.answer).toMatch(/^HTTP\/1\.1 408/)
  }, 60_000)
})
