import { createHash, randomBytes } from "node:crypto"
import { Duration } from "effect"
import { DOWNLOAD_TOKEN_TTL } from "./DownloadTokenRules.js"

export { DOWNLOAD_TOKEN_MAX_DOWNLOADS, DOWNLOAD_TOKEN_TTL } from "./DownloadTokenRules.js"

/** 64 lowercase hex characters (32 bytes from the CSPRNG): the spec's 64-character token. */
export const DOWNLOAD_TOKEN_PATTERN = /^[0-9a-f]{64}$/

export const generateDownloadToken = (): string => randomBytes(32).toString("hex")

/** The only form in which a token is stored or looked up. */
export const hashDownloadToken = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest()

/** When a token generated at `generatedAtMillis` stops working. */
export const downloadTokenExpiry = (generatedAtMillis: number): Date =>
  new Date(generatedAtMillis + Duration.toMillis(DOWNLOAD_TOKEN_TTL))
