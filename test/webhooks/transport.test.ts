import type * as dns from "node:dns"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Either, Fiber, Layer, Option, TestClock } from "effect"
import { AppConfig } from "../../src/infra/config/AppConfig.js"
import { checkedLookup, type ResolveAll } from "../../src/infra/webhooks/CheckedLookup.js"
import { failureOf, makeWebhookTransportLayer } from "../../src/infra/webhooks/HttpsWebhookTransport.js"
import { type WebhookRequest, WebhookTransport } from "../../src/infra/webhooks/WebhookTransport.js"
import { type HttpsReceiver, startHttpsReceiver } from "../support/HttpsReceiver.js"
import { testConfig } from "../support/TestServer.js"

let receiver: HttpsReceiver
let other: HttpsReceiver

beforeAll(async () => {
  receiver = await startHttpsReceiver()
  other = await startHttpsReceiver()
})
afterAll(async () => {
  await receiver.close()
  await other.close()
})

/** A transport as the worker builds it, trusting the test receivers' self-signed certificates unless told not to. */
const transport = (options: { allowPrivateNetworks: boolean; trustReceivers?: boolean }) =>
  makeWebhookTransportLayer({
    extraCaCertificates: options.trustReceivers === false ? [] : [receiver.ca, other.ca]
  }).pipe(
    Layer.provide(Layer.succeed(AppConfig, testConfig({ webhookAllowPrivateNetworks: options.allowPrivateNetworks })))
  )

// Built per test (the receivers start in beforeAll): each test gets its own agent, released after it.
const Local = Layer.suspend(() => transport({ allowPrivateNetworks: true }))
const Guarded = Layer.suspend(() => transport({ allowPrivateNetworks: false }))

const send = (request: WebhookRequest) => Effect.flatMap(WebhookTransport, (t) => t.send(request))
const post = (url: string) => send({ url, headers: { "content-type": "application/json" }, body: "{}" })

const failureReason = <A, E extends { reason: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.either(effect), (result) => (Either.isLeft(result) ? result.left.reason : "succeeded"))

/** Polls a real-world condition in real time (the TestClock does not move sockets). */
const eventually = (check: () => Promise<boolean>, timeoutMs = 5_000) =>
  Effect.promise(async () => {
    const deadline = performance.now() + timeoutMs
    while (!(await check())) {
      if (performance.now() > deadline) return false
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    return true
  })

describe("webhook transport against a real HTTPS receiver", () => {
  it.effect("returns the receiver's status, 2xx or not", () =>
    Effect.gen(function* () {
      const before = receiver.requests.length
      receiver.setResponder((_, index) => ({ status: index === before ? 204 : 500 }))
      expect(yield* post(`${receiver.origin}/ok`)).toEqual({ status: 204 })
      expect(yield* post(`${receiver.origin}/broken`)).toEqual({ status: 500 })
    }).pipe(Effect.provide(Local))
  )

  it.effect("returns a 302 as it is and does not follow its Location", () =>
    Effect.gen(function* () {
      receiver.setResponder(() => ({ status: 302, headers: { location: `${other.origin}/elsewhere` } }))
      const [connections, requests] = [other.connectionCount(), other.requests.length]
      expect(yield* post(`${receiver.origin}/moved`)).toEqual({ status: 302 })
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 200)))
      expect(other.connectionCount()).toBe(connections)
      expect(other.requests.length).toBe(requests)
      receiver.setResponder(() => ({ status: 200 }))
    }).pipe(Effect.provide(Local))
  )

  it.effect("POSTs exactly the given bytes and headers, with the body's Content-Length", () =>
    Effect.gen(function* () {
      receiver.setResponder(() => ({ status: 200 }))
      const body = '{"event":"tender.matched","data":{"title":"Șantier – lot 2 ✓","amount":1e3}}\n'
      const headers = {
        "content-type": "application/json",
        "user-agent": "TenderScoring-Webhooks/1.0",
        "x-svc-event": "tender.matched",
        "x-svc-delivery": "0b7e1c52-3a8f-4f7e-9a43-6f1f0b6c2d10",
        "x-svc-timestamp": "1767225600",
        "x-svc-signature": `sha256=${"ab".repeat(32)}`
      }
      const before = receiver.requests.length
      yield* send({ url: `${receiver.origin}/hooks/a?x=1&y=%C8%98`, headers, body })
      const received = receiver.requests[before]!
      expect(received.method).toBe("POST")
      expect(received.path).toBe("/hooks/a?x=1&y=%C8%98")
      expect(received.body).toBe(body)
      expect(received.headers["content-length"]).toBe(String(Buffer.byteLength(body)))
      expect(received.headers).toMatchObject(headers)
      expect(received.headers.host).toBe(new URL(receiver.origin).host)
    }).pipe(Effect.provide(Local))
  )

  it.effect("gives up after 30 s on the Effect clock and closes the connection", () =>
    Effect.gen(function* () {
      receiver.setResponder(() => ({ status: 200, delayMs: 120_000 }))
      const before = receiver.requests.length
      const fiber = yield* Effect.fork(post(`${receiver.origin}/slow`))
      yield* Effect.promise(() => receiver.waitFor(before + 1))
      yield* TestClock.adjust(Duration.seconds(29))
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      yield* TestClock.adjust(Duration.seconds(1))
      const outcome = yield* Effect.either(Fiber.join(fiber))
      expect(Either.isLeft(outcome) && outcome.left.reason).toBe("timeout")
      expect(yield* eventually(async () => (await receiver.openConnections()) === 0)).toBe(true)
      receiver.setResponder(() => ({ status: 200 }))
    }).pipe(Effect.provide(Local))
  )

  it.effect("an interrupted send destroys its request", () =>
    Effect.gen(function* () {
      receiver.setResponder(() => ({ status: 200, delayMs: 120_000 }))
      const before = receiver.requests.length
      const fiber = yield* Effect.fork(post(`${receiver.origin}/slow`))
      yield* Effect.promise(() => receiver.waitFor(before + 1))
      yield* Fiber.interrupt(fiber)
      expect(yield* eventually(async () => (await receiver.openConnections()) === 0)).toBe(true)
      receiver.setResponder(() => ({ status: 200 }))
    }).pipe(Effect.provide(Local))
  )

  it.effect("a closed port is refused", () =>
    Effect.gen(function* () {
      const port = yield* Effect.promise(
        () =>
          new Promise<number>((resolve) => {
            const server = net.createServer().listen(0, "127.0.0.1", () => {
              const { port } = server.address() as net.AddressInfo
              server.close(() => resolve(port))
            })
          })
      )
      expect(yield* failureReason(post(`https://127.0.0.1:${port}/`))).toBe("refused")
    }).pipe(Effect.provide(Local))
  )

  it.effect("an untrusted certificate is a TLS failure and nothing is posted", () =>
    Effect.gen(function* () {
      const before = receiver.requests.length
      expect(yield* failureReason(post(`${receiver.origin}/`))).toBe("tls")
      expect(receiver.requests.length).toBe(before)
    }).pipe(Effect.provide(Layer.suspend(() => transport({ allowPrivateNetworks: true, trustReceivers: false }))))
  )

  it.effect("extra CAs given to the Layer add to NODE_EXTRA_CA_CERTS, they do not replace it", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tss-ca-"))
    const file = path.join(dir, "extra.pem")
    fs.writeFileSync(file, receiver.ca)
    const layer = Layer.suspend(() =>
      makeWebhookTransportLayer({ extraCaCertificates: [other.ca] }).pipe(
        Layer.provide(Layer.succeed(AppConfig, testConfig({ webhookAllowPrivateNetworks: true }))),
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["NODE_EXTRA_CA_CERTS", file]]))))
      )
    )
    return Effect.gen(function* () {
      receiver.setResponder(() => ({ status: 200 }))
      other.setResponder(() => ({ status: 200 }))
      expect(yield* post(`${receiver.origin}/via-node-extra-ca-certs`)).toEqual({ status: 200 })
      expect(yield* post(`${other.origin}/via-layer`)).toEqual({ status: 200 })
    }).pipe(Effect.provide(layer), Effect.ensuring(Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))))
  })

  it.effect("only https:// URLs are sent to", () =>
    Effect.gen(function* () {
      const port = new URL(receiver.origin).port
      expect(yield* failureReason(post(`http://127.0.0.1:${port}/`))).toBe("invalid_url")
      expect(yield* failureReason(post("ftp://example.com/"))).toBe("invalid_url")
      expect(yield* failureReason(post("/relative/path"))).toBe("invalid_url")
      expect(yield* failureReason(post("not a url"))).toBe("invalid_url")
    }).pipe(Effect.provide(Local))
  )

  it.effect("refuses private, loopback, link-local, CGNAT, unspecified and multicast targets without connecting", () =>
    Effect.gen(function* () {
      const port = new URL(receiver.origin).port
      const connectionsBefore = receiver.connectionCount()
      const requestsBefore = receiver.requests.length
      const hosts = [
        "127.0.0.1",
        "localhost",
        "[::1]",
        "10.0.0.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "[::ffff:127.0.0.1]",
        "224.0.0.1",
        "2130706433" // 127.0.0.1 as one number: the URL parser normalises it
      ]
      for (const host of hosts) {
        expect(yield* failureReason(post(`https://${host}:${port}/`)), host).toBe("forbidden_address")
      }
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
      expect(receiver.connectionCount()).toBe(connectionsBefore)
      expect(receiver.requests.length).toBe(requestsBefore)
    }).pipe(Effect.provide(Guarded))
  )

  it.effect("with private networks allowed, a host name reaches the local receiver and reuses its connection", () =>
    Effect.gen(function* () {
      receiver.setResponder(() => ({ status: 200 }))
      const port = new URL(receiver.origin).port
      const connectionsBefore = receiver.connectionCount()
      for (let n = 0; n < 3; n++) expect(yield* post(`https://localhost:${port}/keep-alive`)).toEqual({ status: 200 })
      expect(receiver.connectionCount() - connectionsBefore).toBe(1)
    }).pipe(Effect.provide(Local))
  )
})

describe("socket errors in the failure vocabulary", () => {
  const errorWith = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`boom ${code}`), { code })

  it("maps refusals, resets, DNS failures and certificate errors", () => {
    const cases: ReadonlyArray<[string, string]> = [
      ["ECONNREFUSED", "refused"],
      ["ECONNRESET", "refused"],
      ["EHOSTUNREACH", "refused"],
      ["ENOTFOUND", "network"],
      ["EAI_AGAIN", "network"],
      ["CERT_HAS_EXPIRED", "tls"],
      ["DEPTH_ZERO_SELF_SIGNED_CERT", "tls"],
      ["ERR_TLS_CERT_ALTNAME_INVALID", "tls"],
      ["ERR_SSL_WRONG_VERSION_NUMBER", "tls"],
      ["ERR_WEBHOOK_FORBIDDEN_ADDRESS", "forbidden_address"],
      ["ESOMETHINGELSE", "network"]
    ]
    for (const [code, reason] of cases) expect(failureOf(errorWith(code)).reason, code).toBe(reason)
    expect(failureOf(errorWith("ECONNRESET")).message).toBe("ECONNRESET: boom ECONNRESET")
  })

  it.effect("a host that does not resolve is a network failure", () =>
    Effect.gen(function* () {
      expect(yield* failureReason(post("https://no-such-host.invalid/hook"))).toBe("network")
    }).pipe(Effect.provide(Guarded))
  )
})

describe("the checked lookup sockets connect through", () => {
  const addresses = (...list: Array<[string, 4 | 6]>): Array<dns.LookupAddress> =>
    list.map(([address, family]) => ({ address, family }))
  const resolverOf =
    (answers: Record<string, Array<dns.LookupAddress>>): ResolveAll =>
    (hostname, callback) =>
      callback(null, answers[hostname] ?? [])
  const lookUp = (lookup: net.LookupFunction, hostname: string, options: dns.LookupOptions) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number | undefined }>((resolve) =>
      lookup(hostname, options, (error, address, family) => resolve({ error, address, family }))
    )

  const answers = {
    "public.test": addresses(["93.184.216.34", 4], ["2606:2800:220:1:248:1893:25c8:1946", 6]),
    "rebind.test": addresses(["93.184.216.34", 4], ["10.0.0.7", 4])
  }

  it("hands the socket exactly the addresses it checked", async () => {
    const lookup = checkedLookup(resolverOf(answers), false)
    expect(await lookUp(lookup, "public.test", { all: true })).toEqual({
      error: null,
      address: answers["public.test"],
      family: undefined
    })
    expect(await lookUp(lookup, "public.test", { family: 6 })).toEqual({
      error: null,
      address: "2606:2800:220:1:248:1893:25c8:1946",
      family: 6
    })
  })

  it("refuses a host when any of its addresses is special-purpose", async () => {
    const { error } = await lookUp(checkedLookup(resolverOf(answers), false), "rebind.test", { all: true })
    expect(error?.code).toBe("ERR_WEBHOOK_FORBIDDEN_ADDRESS")
    expect(error?.message).toContain("10.0.0.7")
  })

  it("lets private addresses through when private networks are allowed", async () => {
    expect(await lookUp(checkedLookup(resolverOf(answers), true), "rebind.test", { all: false })).toEqual({
      error: null,
      address: "93.184.216.34",
      family: 4
    })
  })

  it("reports a host without addresses of the wanted family as not found", async () => {
    const { error } = await lookUp(checkedLookup(resolverOf(answers), false), "nothing.test", { all: true })
    expect(error?.code).toBe("ENOTFOUND")
  })
})
