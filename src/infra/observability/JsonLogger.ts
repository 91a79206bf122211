import { Cause, Config, FiberRefs, HashMap, List, Logger } from "effect"
import { currentRequest } from "./RequestTrail.js"

/** A log message as text: Effect passes several arguments as an array. */
const text = (message: unknown): string => {
  if (typeof message === "string") return message
  if (Array.isArray(message)) return message.map(text).join(" ")
  if (message instanceof Error) return message.message
  try {
    return JSON.stringify(message) ?? String(message)
  } catch {
    return String(message)
  }
}

/**
 * The id of the request a line is written in (RequestTrail.currentRequest), read from the fiber's
 * refs when a line is written rather than annotated on every request: most requests write no line
 * but their own, and an annotation costs every request a FiberRef scope.
 */
const requestIdIn = (context: FiberRefs.FiberRefs) => FiberRefs.getOrDefault(context, currentRequest)?.requestId

/**
 * One JSON object per line: `time`, `level`, `message`, `request_id` inside a request, then the
 * annotations flat (`tenant_id`, `route`, `status`, `duration_ms` on a request's line; `job_id`,
 * `kind`, `outcome` on a job's), the log spans as `<name>_ms`, and `cause` when there is one.
 * Effect's Logger, so every `Effect.log*` of the service goes through it; log shippers read it
 * without a pattern.
 */
export const jsonLogger = Logger.make(({ logLevel, message, annotations, cause, date, spans, context }) => {
  const line: Record<string, unknown> = {
    time: date.toISOString(),
    level: logLevel.label.toLowerCase(),
    message: text(message)
  }
  const requestId = requestIdIn(context)
  if (requestId !== undefined) line.request_id = requestId
  for (const [key, value] of HashMap.toEntries(annotations)) line[key] = value
  const now = date.getTime()
  for (const span of List.toArray(spans)) line[`${span.label}_ms`] = now - span.startTime
  if (!Cause.isEmpty(cause)) line.cause = Cause.pretty(cause, { renderErrorCause: true })
  globalThis.console.log(JSON.stringify(line))
})

/** LOG_FORMAT: `json` (the default: one object per line) or `text` (Effect's pretty lines, for a terminal). */
export const logFormat = Config.string("LOG_FORMAT").pipe(
  Config.withDefault(""),
  Config.map((value) => value.trim().toLowerCase()),
  Config.validate({
    message: 'LOG_FORMAT: Expected "json" or "text"',
    validation: (value) => ["", "json", "text"].includes(value)
  }),
  Config.map((value): "json" | "text" => (value === "text" ? "text" : "json"))
)

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g
const ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" }

/**
 * A logged text on one line: control characters written as escapes (a line feed as the two
 * characters `\n`, others as `\u001b`). A value from outside (a notice's authority name in a skip
 * reason) with a line break would otherwise add lines that read as the logger's own: a header
 * (`[12:00:00.000] ERROR …`) or an annotation (`  tenant_id: …`).
 */
export const escapeControls = (text: string): string =>
  text.replace(CONTROLS, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

const escapedText = (value: unknown): unknown => (typeof value === "string" ? escapeControls(value) : value)

/**
 * Effect's pretty lines, with the request id among the annotations inside a request: a header line
 * with the message, then one indented line per further message part and annotation. Text messages
 * and annotation values are escaped (`escapeControls`), so each stays on its line; others (objects,
 * errors) are printed by Node's inspector, which quotes their strings, and a cause keeps its stack's lines.
 */
const textLogger = Logger.mapInputOptions(Logger.prettyLoggerDefault, (options) => {
  const requestId = requestIdIn(options.context)
  const annotations =
    requestId === undefined ? options.annotations : HashMap.set(options.annotations, "request_id", requestId as unknown)
  return {
    ...options,
    message: Array.isArray(options.message) ? options.message.map(escapedText) : escapedText(options.message),
    annotations: HashMap.map(annotations, escapedText)
  }
})

/** The process's logger for a format: replaces Effect's default logger. */
export const loggerFor = (format: "json" | "text") =>
  Logger.replace(Logger.defaultLogger, format === "json" ? jsonLogger : textLogger)
