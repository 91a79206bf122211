import { Duration } from "effect"

/**
 * Spec 8.3: a download token is valid 15 minutes from generation and for 3 downloads. Apart from
 * DownloadToken.ts (which needs node:crypto) so the API definitions, and with them the browser app,
 * can name these limits.
 */
export const DOWNLOAD_TOKEN_TTL = Duration.minutes(15)
export const DOWNLOAD_TOKEN_MAX_DOWNLOADS = 3
