import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { createServer as createHttpServer, type Server } from "node:http"
import * as path from "node:path"
import { freePort, pause } from "../hardening/OwnServers.js"

/** Helpers of the observability tests: real processes, a Prometheus parser, an OTLP receiver. */

export { freePort, pause }

/** Polls `check` until it returns something (or the time runs out, failing with `what`). */
export const eventually = async <A>(what: string, check: () => Promise<A | undefined>, seconds = 60): Promise<A> => {
  const deadline = Date.now() + seconds * 1000
  while (Date.now() < deadline) {
    try {
      const value = await check()
      if (value !== undefined) return value
    } catch {}
    await pause(200)
  }
  throw new Error(`timed out waiting for ${what}`)
}

/**
 * Polls `check` while `service` runs: fails at once, with the end of its output, when the process
 * exits, and with the same on timeout (a start that failed says why instead of "timed out").
 */
export const untilServing = async <A>(
  service: ServiceProcess,
  what: string,
  check: () => Promise<A | undefined>,
  seconds = 120
): Promise<A> => {
  const deadline = Date.now() + seconds * 1000
  const failure = (why: string) => new Error(`${what}: ${why}; its output ends with:\n${service.output().slice(-2000)}`)
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null || service.child.signalCode !== null) {
      throw failure(`the process exited (${service.child.exitCode ?? service.child.signalCode})`)
    }
    try {
      const value = await check()
      if (value !== undefined) return value
    } catch {}
    await pause(200)
  }
  throw failure(`not ready after ${seconds} s`)
}

export interface ServiceProcess {
  readonly child: ChildProcess
  /** Everything it wrote on stdout and stderr so far. */
  readonly output: () => string
  readonly stop: () => Promise<void>
}

/** A real `src/bin/<which>.ts` process (its own process group, so tsx and node stop together). */
export const spawnService = (which: "api" | "worker", env: Record<string, string>): ServiceProcess => {
  let output = ""
  const child = spawn(path.resolve("node_modules/.bin/tsx"), [`src/bin/${which}.ts`], {
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "REDIS_URL")),
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      CURSOR_SECRET: randomBytes(32).toString("hex"),
      ...env
    },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"]
  })
  child.stdout!.on("data", (d) => (output += d))
  child.stderr!.on("data", (d) => (output += d))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  return {
    child,
    output: () => output,
    stop: async () => {
      if (child.pid !== undefined && child.exitCode === null) {
        try {
          process.kill(-child.pid, "SIGTERM")
        } catch {}
        await Promise.race([exited, pause(10_000)])
      }
    }
  }
}

/** The JSON lines of a process's output (other lines, e.g. a banner, are skipped). */
export const jsonLines = (output: string): Array<Record<string, any>> =>
  output.split("\n").flatMap((line) => {
    if (!line.startsWith("{")) return []
    try {
      return [JSON.parse(line)]
    } catch {
      return []
    }
  })

export interface Sample {
  readonly name: string
  readonly labels: Record<string, string>
  readonly value: number
}

/**
 * The samples of a Prometheus text exposition (format 0.0.4): `name{a="b",…} value`, with the
 * label-value escapes \\, \" and \n; comments (# HELP, # TYPE) skipped. A line that does not parse
 * fails the test: the text must be valid for a real scraper.
 */
export const parsePrometheus = (text: string): Array<Sample> =>
  text.split("\n").flatMap((line) => {
    if (line === "" || line.startsWith("#")) return []
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? ([^ ]+)(?: \d+)?$/.exec(line)
    if (match === null) throw new Error(`not a Prometheus sample line: ${line}`)
    const labels: Record<string, string> = {}
    const body = match[2] ?? ""
    const labelPattern = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/gy
    let consumed = 0
    for (let m = labelPattern.exec(body); m !== null; m = labelPattern.exec(body)) {
      labels[m[1]!] = m[2]!.replace(/\\n/g, "\n").replace(/\\(["\\])/g, "$1")
      consumed = labelPattern.lastIndex
    }
    if (consumed !== body.length) throw new Error(`bad labels in: ${line}`)
    // Prometheus reads the special values in any case (Go's ParseFloat); prom-client writes NaN as
    // "Nan" (e.g. the event-loop lag mean before its first sample).
    const raw = match[3]!
    const special = raw.toLowerCase()
    const value =
      special === "+inf" || special === "inf"
        ? Infinity
        : special === "-inf"
          ? -Infinity
          : special === "nan"
            ? NaN
            : Number(raw)
    if (Number.isNaN(value) && special !== "nan") throw new Error(`bad value in: ${line}`)
    return [{ name: match[1]!, labels, value }]
  })

export const scrape = async (port: number) => {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`)
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`)
  const text = await res.text()
  return { contentType: res.headers.get("content-type") ?? "", text, samples: parsePrometheus(text) }
}

/**
 * The metric names a PromQL expression reads: what is left once strings, label matchers, ranges,
 * `by (…)` / `without (…)` groupings, function calls' names and numbers are taken out.
 */
export const metricNamesIn = (expr: string): Array<string> => {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, " ")
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(by|without)\s*\([^)]*\)/g, " ")
    .replace(/\b[a-zA-Z_][a-zA-Z0-9_]*\s*\(/g, " ")
  return [...bare.matchAll(/\b[a-zA-Z_:][a-zA-Z0-9_:]*\b/g)]
    .map((m) => m[0])
    .filter((name) => !/^(e\d+|and|or|unless|offset|bool)$/.test(name))
}

export interface ReceivedSpan {
  readonly service: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string
  readonly name: string
  readonly attributes: Record<string, unknown>
}

/** A real OTLP/HTTP receiver: POST /v1/traces with the JSON encoding the exporter sends by default. */
export const startOtlpReceiver = async () => {
  const spans: Array<ReceivedSpan> = []
  const server: Server = createHttpServer((request, response) => {
    let body = ""
    request.on("data", (chunk) => (body += chunk))
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end()
        return
      }
      if (!(request.headers["content-type"] ?? "").includes("json")) {
        response.writeHead(415).end()
        return
      }
      const payload = JSON.parse(body)
      for (const resourceSpans of payload.resourceSpans ?? []) {
        const service =
          resourceSpans.resource?.attributes?.find((a: any) => a.key === "service.name")?.value?.stringValue ?? ""
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              service,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? "",
              name: span.name,
              attributes: Object.fromEntries(
                (span.attributes ?? []).map((a: any) => [a.key, Object.values(a.value ?? {})[0]])
              )
            })
          }
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  const port = await new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port))
  )
  return { url: `http://127.0.0.1:${port}`, spans, close: () => new Promise<void>((r) => server.close(() => r())) }
}
