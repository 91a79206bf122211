import type { IncomingMessage, ServerResponse } from "node:http"
import * as net from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { drainOnClose } from "../../src/http/Draining.js"
import { createServerHoldingEarlyRequests } from "../../src/http/EarlyRequests.js"
import type { ServerAnswer } from "../../src/http/ServerAnswers.js"

/** A raw HTTP/1.1 keep-alive connection: what a load balancer's or a client's connection pool holds. */
const rawConnection = async (port: number) => {
  const socket = net.connect(port, "127.0.0.1")
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve)
    socket.once("error", reject)
  })
  let received = ""
  let closed = false
  const closing = new Promise<void>((resolve) => socket.once("close", () => resolve()))
  socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")))
  socket.on("close", () => (closed = true))
  socket.on("error", () => {})
  return {
    send: (text: string) => socket.write(text),
    received: () => received,
    closed: () => closed,
    closing,
    destroy: () => socket.destroy()
  }
}

/** Responses seen so far on a raw connection (status lines; a body without a line break may precede one). */
const statusLines = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3})[^\r\n]*\r\n/g)].map((m) => Number(m[1]))

const until = async (check: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out")
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const GET = (path: string, headers = "") => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`

/**
 * The API's node:http server as the platform drives it on shutdown: the app's `request` handler is
 * removed first, then `close()` is called and waits for every connection to end.
 */
describe("a server draining on shutdown (src/http/Draining.ts)", () => {
  const cleanups: Array<() => void> = []
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup()
  })

  const start = async (options: Parameters<typeof drainOnClose>[1] = {}) => {
    const server = drainOnClose(createServerHoldingEarlyRequests(), options)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    cleanups.push(() => server.closeAllConnections())
    const { port } = server.address() as net.AddressInfo
    const closed = () => new Promise<void>((resolve) => server.close(() => resolve()))
    return { server, port, closed }
  }

  it("answers a request that arrives on a kept-alive connection after the app left 503 with Connection: close, and the close completes", async () => {
    const answers: Array<ServerAnswer> = []
    const { server, port, closed } = await start({
      reports: { answered: (answer) => answers.push(answer), drainCut: () => {} }
    })
    const app = (_request: IncomingMessage, response: ServerResponse) => response.end("ok")
    server.on("request", app)
    const connection = await rawConnection(port)
    cleanups.push(connection.destroy)
    connection.send(GET("/first"))
    await until(() => statusLines(connection.received()).length === 1)
    // Kept alive while the app serves.
    expect(connection.received()).not.toMatch(/\r\nconnection: close\r\n/i)

    // The next request is on its way when the app leaves (its head half arrived): the connection is
    // not idle, so it is not closed under the client, and the request finds no handler.
    const second = GET("/second", "X-Request-Id: drain-probe-1\r\n")
    connection.send(second.slice(0, 20))
    await new Promise((resolve) => setTimeout(resolve, 50))
    server.off("request", app)
    const closing = closed()
    connection.send(second.slice(20))
    await connection.closing
    await closing

    expect(statusLines(connection.received())).toEqual([200, 503])
    const refused = connection.received().slice(connection.received().lastIndexOf("HTTP/1.1 503"))
    expect(refused).toMatch(/\r\nconnection: close\r\n/i)
    expect(refused).toMatch(/\r\nx-request-id: drain-probe-1\r\n/i)
    expect(JSON.parse(refused.slice(refused.indexOf("\r\n\r\n") + 4))).toEqual({
      statusCode: 503,
      code: "SERVICE_UNAVAILABLE",
      message: "The server is shutting down; send the request again"
    })
    expect(answers).toEqual([{ requestId: "drain-probe-1", method: "GET", status: 503, seconds: expect.any(Number) }])
  })

  it("sends the response in flight when the app leaves with Connection: close, so the connection ends with it", async () => {
    const { server, port, closed } = await start()
    let release: (() => void) | undefined
    const app = (_request: IncomingMessage, response: ServerResponse) => {
      release = () => response.end("late")
    }
    server.on("request", app)
    const connection = await rawConnection(port)
    cleanups.push(connection.destroy)
    connection.send(GET("/slow"))
    await until(() => release !== undefined)

    server.off("request", app)
    const closing = closed()
    release?.()
    await connection.closing
    await closing
    expect(statusLines(connection.received())).toEqual([200])
    expect(connection.received()).toMatch(/\r\nconnection: close\r\n/i)
  })

  it("closes the connection of a response whose headers were out before the app left, once it finishes", async () => {
    const { server, port, closed } = await start()
    let finish = () => {}
    const app = (_request: IncomingMessage, response: ServerResponse) => {
      // A streamed answer (an export): its head is sent, kept alive, before shutdown begins.
      response.writeHead(200, { "content-type": "text/plain" })
      response.write("first part;")
      finish = () => response.end("last part")
    }
    server.on("request", app)
    const connection = await rawConnection(port)
    cleanups.push(connection.destroy)
    connection.send(GET("/stream"))
    await until(() => connection.received().includes("first part"))
    expect(connection.received()).not.toMatch(/\r\nconnection: close\r\n/i)

    server.off("request", app)
    const closing = closed()
    finish()
    await connection.closing
    await closing
    expect(connection.received()).toContain("last part")
  })

  it("gives a request that never completes until the deadline, then closes its connection so the close completes", async () => {
    const cuts: Array<number> = []
    const { server, port, closed } = await start({
      deadline: "300 millis",
      reports: { answered: () => {}, drainCut: (inFlight) => cuts.push(inFlight) }
    })
    const app = () => {}
    server.on("request", app)
    const connection = await rawConnection(port)
    cleanups.push(connection.destroy)
    connection.send(GET("/stuck"))
    await new Promise((resolve) => setTimeout(resolve, 100))

    server.off("request", app)
    const started = Date.now()
    await closed()
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
    expect(Date.now() - started).toBeLessThan(3_000)
    expect(connection.closed() || (await connection.closing.then(() => true))).toBe(true)
    expect(cuts).toEqual([1])
  })
})
