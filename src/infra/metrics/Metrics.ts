import { Context } from "effect"
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client"

/** Seconds; the OpenTelemetry HTTP server duration buckets (the key API answers in a few ms). */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]
/** Seconds; a report render takes seconds (a warm Chromium) to a minute (a cold one, a long report). */
const RENDER_BUCKETS = [0.5, 1, 2, 5, 10, 20, 30, 60, 120]

/**
 * What a scrape reads from PostgreSQL (queue depth, ingestion lag, pool use): a process that has the
 * database registers one, and the gauges below ask it when /metrics is read, not on every change.
 * `queue` and `ingest` reject while the database cannot be read.
 */
export interface ScrapeSource {
  readonly queue: () => Promise<
    ReadonlyArray<{ kind: string; status: string; jobs: number; oldestDueSeconds: number | null }>
  >
  readonly ingest: () => Promise<
    ReadonlyArray<{ source: string; enabled: boolean; lagSeconds: number | null; failing: boolean }>
  >
  readonly pool: () => { total: number; idle: number; waiting: number }
}

/**
 * The process's instruments, in one prom-client registry: recorded from the code paths where the
 * things happen (a request answered, a delivery attempted, credits charged), exposed at /metrics by
 * MetricsEndpoint. Process-wide like the process's memory they report, so one per process.
 */
const makeMetrics = () => {
  const registry = new Registry()
  // Process memory, CPU, event-loop delay (a histogram of monitorEventLoopDelay), GC, handles.
  collectDefaultMetrics({ register: registry })

  const sources = new Set<ScrapeSource>()
  /** The first registered source answers (a process has one database). */
  const source = () => sources.values().next().value as ScrapeSource | undefined
  // A scrape whose database reads fail still answers: those series are left out, `database_up` says why.
  const rowsOf = async <A>(read: (from: ScrapeSource) => Promise<ReadonlyArray<A>>): Promise<ReadonlyArray<A>> => {
    const current = source()
    return current === undefined ? [] : read(current).catch(() => [])
  }

  const httpRequestDuration = new Histogram({
    name: "http_server_request_duration_seconds",
    help: "Duration of HTTP server requests, by route template, method and status",
    labelNames: ["http_route", "http_request_method", "http_response_status_code"] as const,
    buckets: HTTP_BUCKETS,
    registers: [registry]
  })

  const jobsByStatus = new Gauge({
    name: "jobs",
    help: "Jobs of the queue by kind and status (queued includes those due later; dead are dead-lettered, kept 30 days)",
    labelNames: ["kind", "status"] as const,
    registers: [registry],
    async collect() {
      const rows = await rowsOf((from) => from.queue())
      this.reset()
      for (const row of rows) this.set({ kind: row.kind, status: row.status }, row.jobs)
    }
  })
  const oldestJobAge = new Gauge({
    name: "job_queue_oldest_age_seconds",
    help: "How long the oldest due, unclaimed job of each kind has waited (0 when none waits)",
    labelNames: ["kind"] as const,
    registers: [registry],
    async collect() {
      const rows = await rowsOf((from) => from.queue())
      this.reset()
      for (const row of rows) if (row.status === "queued") this.set({ kind: row.kind }, row.oldestDueSeconds ?? 0)
    }
  })
  const databaseUp = new Gauge({
    name: "database_up",
    help: "1 when this scrape read the database's figures (jobs, ingestion), 0 when those reads failed and their series are absent",
    registers: [registry],
    async collect() {
      const current = source()
      if (current === undefined) return
      this.set(
        await Promise.all([current.queue(), current.ingest()]).then(
          () => 1,
          () => 0
        )
      )
    }
  })
  const jobOutcomes = new Counter({
    name: "job_outcomes_total",
    help: "Jobs run by this process, by kind and outcome (done, retry, dead, lost)",
    labelNames: ["kind", "outcome"] as const,
    registers: [registry]
  })

  const webhookDeliveries = new Counter({
    name: "webhook_deliveries_total",
    help: "Webhook delivery attempts by outcome (delivered, retry: failed and due again, failed: given up)",
    labelNames: ["outcome"] as const,
    registers: [registry]
  })

  const reportRenders = new Counter({
    name: "report_renders_total",
    help: "PDF report renders by outcome (completed, failed)",
    labelNames: ["outcome"] as const,
    registers: [registry]
  })
  const reportRenderDuration = new Histogram({
    name: "report_render_duration_seconds",
    help: "Duration of PDF report renders (contents read, rendered, stored)",
    buckets: RENDER_BUCKETS,
    registers: [registry]
  })

  const creditsCharged = new Counter({
    name: "credits_charged_total",
    help: "Credits charged to tenants (every charge of the ledger)",
    registers: [registry]
  })

  const scoringPairs = new Counter({
    name: "scoring_pairs_total",
    help: "(tender, company) pairs scored; rate() of it is the scoring throughput",
    registers: [registry]
  })

  const ingestErrors = new Counter({
    name: "ingest_errors_total",
    help: "Failed polls of a notice source, by source",
    labelNames: ["source"] as const,
    registers: [registry]
  })
  const ingestLag = new Gauge({
    name: "ingest_lag_seconds",
    help: "Seconds since the source's last successful poll (sources a worker polls; absent before the first)",
    labelNames: ["source"] as const,
    registers: [registry],
    async collect() {
      const rows = await rowsOf((from) => from.ingest())
      this.reset()
      for (const row of rows)
        if (row.enabled && row.lagSeconds !== null) this.set({ source: row.source }, row.lagSeconds)
    }
  })
  const ingestFailing = new Gauge({
    name: "ingest_source_failing",
    help: "1 when the source's last poll failed (it is degraded), else 0",
    labelNames: ["source"] as const,
    registers: [registry],
    async collect() {
      const rows = await rowsOf((from) => from.ingest())
      this.reset()
      for (const row of rows) if (row.enabled) this.set({ source: row.source }, row.failing ? 1 : 0)
    }
  })

  const pgPool = new Gauge({
    name: "pg_pool_connections",
    help: "The process's PostgreSQL pool: connections open (total), idle, and requests waiting for one",
    labelNames: ["state"] as const,
    registers: [registry],
    collect() {
      const pool = source()?.pool()
      if (pool === undefined) return
      this.set({ state: "total" }, pool.total)
      this.set({ state: "idle" }, pool.idle)
      this.set({ state: "waiting" }, pool.waiting)
    }
  })

  const redisErrors = new Counter({
    name: "redis_errors_total",
    help: "Errors of the process's Redis connection (connection lost, refused, timed out)",
    registers: [registry]
  })

  // Every outcome and source from the start at 0, so rate() and alerts see a series before the first event.
  for (const outcome of ["delivered", "retry", "failed", "lost"]) webhookDeliveries.inc({ outcome }, 0)
  for (const outcome of ["completed", "failed"]) reportRenders.inc({ outcome }, 0)
  for (const source of ["ted", "seap"]) ingestErrors.inc({ source }, 0)

  /**
   * The request histogram's child per label set, kept: prom-client hashes the labels on every
   * `observe(labels, v)`, and this runs once per request of the key API.
   */
  const requestChildren = new Map<string, Histogram.Internal<"http_route">>()
  const observeRequest = (route: string, method: string, status: number, seconds: number) => {
    const key = `${method} ${status} ${route}`
    let child = requestChildren.get(key)
    if (child === undefined) {
      child = httpRequestDuration.labels({
        http_route: route,
        http_request_method: method,
        http_response_status_code: String(status)
      })
      requestChildren.set(key, child)
    }
    child.observe(seconds)
  }

  return {
    registry,
    /** Registers what scrapes read from the database; returns its removal. */
    addScrapeSource: (added: ScrapeSource) => {
      sources.add(added)
      return () => {
        sources.delete(added)
      }
    },
    observeRequest,
    jobOutcomes,
    webhookDeliveries,
    reportRenders,
    reportRenderDuration,
    creditsCharged,
    scoringPairs,
    ingestErrors,
    redisErrors,
    /** The gauges a scrape fills from the ScrapeSource (registered by their construction). */
    scraped: { jobsByStatus, oldestJobAge, databaseUp, ingestLag, ingestFailing, pgPool }
  }
}

let processMetrics: ReturnType<typeof makeMetrics> | undefined

/**
 * The process's instruments as a service with a default: code records with `yield* Metrics` without a
 * new requirement on its layers, and every layer of a process (API and worker in `npm start`) records
 * into the one registry that /metrics serves.
 */
export class Metrics extends Context.Reference<Metrics>()("Metrics", {
  defaultValue: () => {
    processMetrics ??= makeMetrics()
    return processMetrics
  }
}) {}
