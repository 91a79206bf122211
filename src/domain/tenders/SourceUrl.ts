/**
 * A notice's link to its public page (`source_url`), as stored: an absolute `http:` or `https:` URL,
 * else the empty string, the service's "no page" (the spec types `source_url` a string, so the
 * list, the export and webhooks carry `""` rather than `null`). A file or a source may carry anything
 * there: a `javascript:` or `data:` link would reach integrators' pages and the app's "original
 * notice" link, a `file:` or relative one names nothing, and a line break would split CSV rows and
 * log lines. The one rule for every way a notice comes in: imports and the TED and SEAP pollers.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const NOT_IN_A_LINK = /[\s\u0000-\u001f\u007f-\u009f]/

/** True when `value` is an absolute http(s) URL with a host, as written (no space or control character inside). */
export const isWebUrl = (value: unknown): value is string => {
  if (typeof value !== "string") return false
  const text = value.trim()
  // The scheme's two slashes are required: `http:example.ro` parses, as `http://example.ro/`, but is no link anyone wrote.
  if (!/^https?:\/\//i.test(text) || NOT_IN_A_LINK.test(text)) return false
  try {
    return new URL(text).hostname !== ""
  } catch {
    return false
  }
}

/** The link as stored: trimmed when it is a web URL, else "" (the notice itself is still taken in). */
export const storedSourceUrl = (value: string | null | undefined): string => (isWebUrl(value) ? value.trim() : "")
