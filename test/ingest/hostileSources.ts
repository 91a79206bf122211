import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { FetchHttpClient } from "@effect/platform"
import { Context, Duration, Effect, Layer } from "effect"
import { IngestConfig, type IngestConfigShape } from "../../src/infra/ingest/IngestConfig.js"
import { NoticeIntakeLive } from "../../src/infra/ingest/NoticeIntake.js"
import { SeapPollerLive } from "../../src/infra/ingest/SeapPoller.js"
import { TedPollerLive } from "../../src/infra/ingest/TedPoller.js"
import { FakeSeapLive, FakeTedLive, Seap, Ted } from "../ingest/ingestFixtures.js"
import { TestInfraLive } from "../support/TestServer.js"

/**
 * A proxy in front of a fake source (test/support/FakeTed, FakeSeap): it forwards every request to
 * the fake, with the fake's real shapes, unless a rule answers it otherwise (hostile answers: a
 * mutated body, HTML with 200, a redirect, a body that drips or never ends). The fake's own address
 * in a forwarded body (TED's links.xml.MUL) is rewritten to the proxy's, so notice reads pass here too.
 */
export interface Answer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}
export interface ProxyRequest {
  readonly method: string
  readonly path: string
  readonly body: string
}
/** An answer, "handled" (the rule wrote the response itself), or undefined (the next rule, then the fake). */
export type Rule = (
  request: ProxyRequest,
  upstream: () => Promise<Answer>,
  response: http.ServerResponse
) => Promise<Answer | "handled" | undefined> | Answer | "handled" | undefined

export interface Hostile {
  readonly url: string
  readonly upstream: string
  rule(rule: Rule): void
  clear(): void
  readonly requests: ReadonlyArray<ProxyRequest>
  close(): Promise<void>
}

export const startHostile = async (upstream: string): Promise<Hostile> => {
  let rules: Array<Rule> = []
  const requests: Array<ProxyRequest> = []
  const sockets = new Set<import("node:net").Socket>()
  let own = ""
  const forward = async (request: ProxyRequest, headers: http.IncomingHttpHeaders): Promise<Answer> => {
    const pass: Record<string, string> = {}
    for (const name of ["user-agent", "accept", "content-type", "referer"]) {
      const value = headers[name]
      if (typeof value === "string") pass[name] = value.replace(own, upstream)
    }
    const answer = await fetch(`${upstream}${request.path}`, {
      method: request.method,
      headers: pass,
      ...(request.method === "GET" || request.method === "HEAD" ? {} : { body: request.body }),
      redirect: "manual"
    })
    const out: Record<string, string> = {}
    answer.headers.forEach((value, name) => {
      if (!["content-length", "transfer-encoding", "connection", "keep-alive"].includes(name)) out[name] = value
    })
    return { status: answer.status, headers: out, body: (await answer.text()).replaceAll(upstream, own) }
  }
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", async () => {
      const request = {
        method: req.method ?? "GET",
        path: req.url ?? "/",
        body: Buffer.concat(chunks).toString("utf8")
      }
      requests.push(request)
      const upstreamAnswer = () => forward(request, req.headers)
      try {
        for (const rule of rules) {
          const result = await rule(request, upstreamAnswer, res)
          if (result === "handled") return
          if (result !== undefined) {
            res.writeHead(result.status, result.headers).end(result.body)
            return
          }
        }
        const answer = await upstreamAnswer()
        res.writeHead(answer.status, answer.headers).end(answer.body)
      } catch (error) {
        if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" }).end(String(error))
        else res.destroy()
      }
    })
  })
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  own = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url: own,
    upstream,
    rule: (rule) => {
      rules.push(rule)
    },
    clear: () => {
      rules = []
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}

/** A plain server of its own (another host, as far as the client can tell). */
export const startOtherHost = async (handler: http.RequestListener) => {
  const server = http.createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

export class TedProxy extends Context.Tag("audit/TedProxy")<TedProxy, Hostile>() {}
export class SeapProxy extends Context.Tag("audit/SeapProxy")<SeapProxy, Hostile>() {}

const proxyOf = <I, S extends { readonly url: string }>(fake: Context.Tag<I, S>) =>
  Effect.flatMap(fake, (source) =>
    Effect.acquireRelease(
      Effect.promise(() => startHostile(source.url)),
      (proxy) => Effect.promise(() => proxy.close())
    )
  )

const ProxiesLive = Layer.merge(Layer.scoped(TedProxy, proxyOf(Ted)), Layer.scoped(SeapProxy, proxyOf(Seap)))

const AuditIngestConfig = (overrides: Partial<IngestConfigShape>) =>
  Layer.effect(
    IngestConfig,
    Effect.gen(function* () {
      return {
        sources: ["ted", "seap"],
        tedApiUrl: (yield* TedProxy).url,
        seapApiUrl: (yield* SeapProxy).url,
        pollEvery: Duration.seconds(1),
        spacing: { ted: Duration.zero, seap: Duration.zero },
        pageSize: 100,
        seapRevisitDays: 0,
        userAgent: "TenderScoringService/0.1 (+http://127.0.0.1 audit)",
        ...overrides
      } satisfies IngestConfigShape
    })
  )

/** Both pollers and the intake over a fresh database, reading the fakes through the hostile proxies. */
export const AuditIngestLive = (overrides: Partial<IngestConfigShape> = {}) =>
  Layer.merge(TedPollerLive, SeapPollerLive).pipe(
    Layer.provideMerge(NoticeIntakeLive),
    Layer.provideMerge(AuditIngestConfig(overrides)),
    Layer.provideMerge(ProxiesLive),
    Layer.provideMerge(Layer.mergeAll(FakeTedLive, FakeSeapLive)),
    Layer.provideMerge(FetchHttpClient.layer),
    Layer.provideMerge(TestInfraLive())
  )

/** A JSON rewrite of the fake's answer to requests whose path matches. */
export const rewriteJson =
  (path: RegExp, change: (json: any) => unknown): Rule =>
  async (request, upstream) => {
    if (!path.test(request.path)) return undefined
    const answer = await upstream()
    if (answer.status !== 200) return answer
    return { ...answer, body: JSON.stringify(change(JSON.parse(answer.body))) }
  }

/**
 * TED's search answering every request with the query's first page, each time naming a fresh
 * iteration token: an iteration that never ends. Without `totalNoticeCount` when `counted` is false.
 * Returns how many searches it has answered.
 */
export const firstPageForEver = (proxy: Hostile, options: { readonly counted: boolean }) => {
  let turn = 0
  proxy.rule(async (request) => {
    if (!request.path.startsWith("/v3/notices/search")) return undefined
    const { iterationNextToken: _, ...firstPage } = JSON.parse(request.body) as { iterationNextToken?: string }
    const answer = await fetch(`${proxy.upstream}/v3/notices/search`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(firstPage)
    })
    const { totalNoticeCount, ...json } = (await answer.json()) as Record<string, unknown>
    turn++
    return {
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        ...json,
        ...(options.counted ? { totalNoticeCount } : {}),
        iterationNextToken: `page-${turn}`
      }).replaceAll(proxy.upstream, proxy.url)
    }
  })
  return () => turn
}
