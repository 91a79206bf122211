import { createHash, randomBytes } from "node:crypto"

/** `svc_` + 64 lowercase hex characters (32 bytes from the CSPRNG). */
export const API_KEY_PATTERN = /^svc_[0-9a-f]{64}$/
export const MAX_ACTIVE_API_KEYS = 3

export const generateApiKey = (): string => `svc_${randomBytes(32).toString("hex")}`

/** The only form in which a key is stored or looked up. */
export const hashApiKey = (key: string): Buffer => createHash("sha256").update(key, "utf8").digest()

/** What listings show: the prefix and the first characters, never enough to use. */
export const maskApiKey = (key: string): string => `${key.slice(0, 12)}…`

export const isWellFormedApiKey = (candidate: string): boolean => API_KEY_PATTERN.test(candidate)
