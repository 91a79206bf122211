import { Schema } from "effect"

/**
 * A side of an address: no whitespace, no control character, none of the characters with which an
 * address list grows a second address, a display name, a comment or a group (`victim,evil@x.ro`,
 * `a <b@x.ro>`, `(c)d@x.ro`, `g:e@x.ro;`): nodemailer would send to every address it reads.
 */
const PART = String.raw`[^\s\u0000-\u001f\u007f-\u009f\u2028\u2029()<>\[\]:;@\\,"]+`

/**
 * One address, `local@domain`: the domain a host name (`localhost` too) or an address literal
 * (`[127.0.0.1]`). MAIL_FROM's address follows it.
 */
export const ADDRESS_PATTERN = String.raw`${PART}@(?:${PART}|\[(?:IPv6:)?[0-9A-Fa-f.:]+\])`

const USER_ADDRESS = new RegExp(String.raw`^${PART}@${PART}\.${PART}$`)

/** RFC 5321's limit on a path, less its angle brackets. */
const MAX_LENGTH = 254

/**
 * A user's e-mail, the one address the service sends to: trimmed, one address (ADDRESS_PATTERN) at a
 * domain with a dot (`ana@firma` is a slip), at most 254 characters.
 */
export const EmailAddress = Schema.Trim.pipe(
  Schema.filter((email) => email.length <= MAX_LENGTH && USER_ADDRESS.test(email), {
    message: () =>
      "must be one e-mail address (name@domain.ro), without spaces, commas, angle brackets or control characters"
  })
)
