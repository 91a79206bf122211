import { Schema } from "effect"

/**
 * The longest password login reads (`POST /api/v1/auth/login` refuses a longer one), so the longest a
 * user may be given: a password login refused would lock its user out. Counted as login counts it
 * (UTF-16 code units).
 */
export const PASSWORD_MAX_LENGTH = 1024

/** The shortest password a user may be given (our choice). */
export const PASSWORD_MIN_LENGTH = 8

/**
 * A password given to a user (`user create`): 8 to 1,024 characters, not blank (only spaces is no
 * secret). Kept as typed, never trimmed: login compares it as sent.
 */
export const NewPassword = Schema.String.pipe(
  Schema.filter((password) => password.trim() !== "", { message: () => "must not be blank" }),
  Schema.filter((password) => password.length >= PASSWORD_MIN_LENGTH, {
    message: () => `must have at least ${PASSWORD_MIN_LENGTH} characters`
  }),
  Schema.filter((password) => password.length <= PASSWORD_MAX_LENGTH, {
    message: () => `must have at most ${PASSWORD_MAX_LENGTH} characters (the longest login accepts)`
  })
)
