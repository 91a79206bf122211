import type { SourceStatus } from "../http/sources/SourcesApi.js"
import { formatDateTime, formatDay } from "./format.js"
import { formatNumber, t } from "./strings.js"

/** A notice source's state as `GET /api/v1/sources` answers it. */
export type SourceStatusData = typeof SourceStatus.Type

/** Polled and fine, not polled (INGEST_SOURCES leaves it out), or polled and failing. */
export type SourceState = "active" | "off" | "degraded"

/** What the settings' "Surse de date" section shows for one source, every text ready to render. */
export interface SourceRow {
  readonly name: SourceStatusData["name"]
  readonly title: string
  readonly state: SourceState
  readonly stateLabel: string
  /** How to turn an unpolled source on (the setting itself is `INGEST_SETTING`). */
  readonly offHint: string | undefined
  readonly watermark: string
  readonly lastSuccess: string
  readonly lastErrorAt: string
  /** The last error's text, only while it is why the source is down. */
  readonly error: string | undefined
  readonly ingested: string
  readonly skipped: string
  /** "N anunțuri pierdute": notices whose retry job was dead-lettered, only when there are some. */
  readonly lost: string | undefined
}

/** The worker setting that turns the pollers on. */
export const INGEST_SETTING = "INGEST_SOURCES=ted,seap"

const time = (iso: string | null) => {
  if (iso === null) return t.settings.sources.never
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : formatDateTime(date)
}

const instant = (iso: string) => new Date(iso).getTime()

/**
 * A polled source whose last poll failed, or that failed before it ever succeeded: it is down (the
 * server's rule for `/ready`).
 */
export const isDegraded = (status: SourceStatusData) =>
  status.enabled &&
  status.lastErrorAt !== null &&
  (status.lastSuccessAt === null || instant(status.lastErrorAt) > instant(status.lastSuccessAt))

const stateOf = (status: SourceStatusData): SourceState =>
  !status.enabled ? "off" : isDegraded(status) ? "degraded" : "active"

/** The API's sources as the rows the settings screen shows, in Romanian. */
export const sourceRows = (statuses: ReadonlyArray<SourceStatusData>): ReadonlyArray<SourceRow> =>
  statuses.map((status) => {
    const state = stateOf(status)
    return {
      name: status.name,
      title: t.settings.sources.name[status.name],
      state,
      stateLabel: t.settings.sources.state[state],
      offHint: state === "off" ? t.settings.sources.offHint : undefined,
      watermark: formatDay(status.watermark),
      lastSuccess: time(status.lastSuccessAt),
      lastErrorAt: time(status.lastErrorAt),
      error: state === "degraded" ? (status.lastError ?? t.none) : undefined,
      ingested: formatNumber(status.ingested, 0),
      skipped: formatNumber(status.skipped, 0),
      lost: status.lostNotices > 0 ? t.settings.sources.lost(status.lostNotices) : undefined
    }
  })
