import { TENDER_MATCHED } from "./DeliverySchedule.js"
/**
 * What a webhook registration may hold (spec 2.6, 4.4, 8.3). Pure rules; the HTTP schemas and the
 * repository apply them.
 */

/** Spec 8.3: active webhooks per tenant. */
export const MAX_ACTIVE_WEBHOOKS = 5

/** The only event kind (spec 6). */
export const WEBHOOK_EVENTS = [TENDER_MATCHED] as const
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]

/** Spec 8.3: at least 32 characters. Ours: at most 1024 (an HMAC key gains nothing from more). */
export const SECRET_MIN_CHARACTERS = 32
export const SECRET_MAX_CHARACTERS = 1024

/** Ours: the common practical URL limit of browsers and proxies. */
export const URL_MAX_LENGTH = 2048

/** A UTF-16 surrogate without its pair: not text, and UTF-8 (storage, the HMAC key) would alter it. */
export const hasLoneSurrogate = (text: string): boolean =>
  /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text)

/**
 * Why `candidate` cannot be a webhook secret, or undefined when it can. Control characters are
 * refused: a secret of NULs, or one carrying a pasted newline, is a mistake the receiver's own copy
 * of the secret would not repeat, and every signature would then fail to verify.
 */
export const secretProblem = (candidate: string): string | undefined => {
  if (hasLoneSurrogate(candidate)) return "must be valid Unicode text"
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(candidate)) return "must not contain control characters"
  const count = characterCount(candidate)
  if (count < SECRET_MIN_CHARACTERS) return `must be at least ${SECRET_MIN_CHARACTERS} characters`
  if (count > SECRET_MAX_CHARACTERS) return `must be at most ${SECRET_MAX_CHARACTERS} characters`
  return undefined
}

/** Characters counted as the user sees them (code points), not UTF-16 units. */
export const characterCount = (text: string): number => [...text].length

/**
 * Why `candidate` is not a receiver URL, or undefined when it is: an absolute `https://` URL with a
 * host, no user name or password (they would sit in our logs and rows in plaintext), no whitespace or
 * control characters (the URL is stored and shown exactly as given, so it must need no cleaning).
 */
export const receiverUrlProblem = (candidate: string): string | undefined => {
  if (candidate.length > URL_MAX_LENGTH) return `must be at most ${URL_MAX_LENGTH} characters`
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\s\u0000-\u001f\u007f]/.test(candidate)) return "must not contain whitespace or control characters"
  if (hasLoneSurrogate(candidate)) return "must be valid Unicode text"
  let url: URL
  try {
    url = new URL(candidate)
  } catch {
    return "must be an absolute URL"
  }
  if (url.protocol !== "https:" || !/^https:\/\//i.test(candidate)) return "must be an https:// URL"
  if (url.hostname === "") return "must name a host"
  if (url.username !== "" || url.password !== "") return "must not contain a user name or password"
  return undefined
}
