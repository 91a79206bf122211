import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MAX_JSON_DEPTH } from "../../src/http/ErrorMapping.js"
import {
  addAlert,
  addTender,
  client,
  query,
  rescoreJobs,
  runRescores,
  type SeededAccount,
  seedAccount,
  signIn
} from "../account/fixtures.js"
import { type Account, addScoredTenders, createAccount, ledgerState } from "../api/fixtures.js"
import { request, type TestResponse } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/**
 * Malformed input swept over every route: whatever a client sends, the answer is a 4xx in the
 * uniform body `{statusCode, code, message, details?}`, never a 5xx, and a refused write stores nothing.
 * Requests carry valid credentials, so the malformed part is what the server has to judge.
 */

/** Ids known once the fixtures exist; paths and bodies are built from them. */
interface Ctx {
  readonly key: Account
  readonly tenderId: string
  readonly account: SeededAccount
  readonly token: string
  readonly watchlistId: string
  readonly alertId: string
}

type Auth = "key" | "token" | "none" | { readonly authorization: string }

/** A request body: JSON (stringified) or raw text/bytes with an optional content type. */
type Body =
  | { readonly json: unknown }
  | { readonly raw: string | Uint8Array; readonly contentType?: string | undefined }

interface Case {
  readonly name: string
  readonly method: "GET" | "POST" | "PATCH" | "DELETE" | "PUT"
  readonly path: (ctx: Ctx) => string
  readonly auth: Auth
  readonly body?: (ctx: Ctx) => Body
}

const HUGE = "x".repeat(100_000)
/** Long, but under node:http's 16 KiB header limit (a longer request line is refused by node itself, with a 431). */
const LONG = "x".repeat(8_000)
const NUL = "a\u0000b"
const CONTROL = "a\u0001\u0008\u001b\u007fb"
const SURROGATE = "a\ud800b"
const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"
/** Percent-encodings that are not UTF-8: a lone surrogate, a stray byte, a broken escape. */
const BAD_ESCAPES = ["%ED%A0%80", "%FF", "%", "%zz", "%00"] as const

const deepArray = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`

// ---------------------------------------------------------------------------------------------
// Tables. Paths and some bodies are functions of the fixtures; every case names what is wrong with it.

/** Malformed bodies that no JSON endpoint accepts, whatever its schema. */
const malformedBodies: ReadonlyArray<readonly [string, Body]> = [
  ["truncated JSON", { raw: '{"name": "x"' }],
  ["trailing comma", { raw: '{"name": "x",}' }],
  ["unquoted keys", { raw: "{name: 'x'}" }],
  ["not JSON at all", { raw: "hello" }],
  ["empty body", { raw: "" }],
  ["whitespace body", { raw: "   \n" }],
  ["JSON null", { raw: "null" }],
  ["JSON array", { raw: "[]" }],
  ["JSON array of objects", { raw: '[{"name": "x"}]' }],
  ["JSON string", { raw: '"x"' }],
  ["JSON number", { raw: "42" }],
  ["JSON boolean", { raw: "true" }],
  ["array nested 5,000 deep", { raw: deepArray(5_000) }],
  ["array nested 100,000 deep", { raw: deepArray(100_000) }],
  ["invalid UTF-8 bytes", { raw: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0xc3, 0x28, 0x7d]) }],
  ["JSON with a NUL byte outside strings", { raw: '{"a": 1}\u0000' }],
  ["text/plain body", { raw: '{"name": "x"', contentType: "text/plain" }],
  ["JSON merge patch media type", { raw: '{"name": "x"}', contentType: "application/merge-patch+json" }],
  ["no content type", { raw: "{{{", contentType: undefined }],
  ["content type with a bad charset", { raw: "{", contentType: "application/json; charset=nope" }],
  ["multipart without a boundary", { raw: "--x\r\n", contentType: "multipart/form-data" }],
  [
    "multipart with an unterminated part",
    {
      raw: '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nx',
      contentType: "multipart/form-data; boundary=x"
    }
  ],
  [
    "multipart with a 200-character boundary",
    { raw: "--x\r\n", contentType: `multipart/form-data; boundary=${"b".repeat(200)}` }
  ]
]

/** Wrong types and sizes for one string field of a body (`rest` completes an otherwise valid body). */
const badStrings = (field: string, rest: Record<string, unknown> = {}): ReadonlyArray<readonly [string, Body]> => [
  [`${field} missing`, { json: { ...rest } }],
  [`${field} null`, { json: { ...rest, [field]: null } }],
  [`${field} number`, { json: { ...rest, [field]: 42 } }],
  [`${field} boolean`, { json: { ...rest, [field]: true } }],
  [`${field} array`, { json: { ...rest, [field]: ["x"] } }],
  [`${field} object`, { json: { ...rest, [field]: { x: 1 } } }],
  [`${field} 100,000 characters`, { json: { ...rest, [field]: HUGE } }],
  [`${field} with NUL`, { json: { ...rest, [field]: NUL } }],
  [`${field} nested 100 deep`, { raw: `{"${field}": ${deepArray(100)}}` }],
  [`${field} nested 10,000 deep`, { raw: `{"${field}": ${deepArray(10_000)}}` }],
  [`${field} an object nested 10,000 deep`, { raw: `{"${field}": ${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}}` }],
  [`${field} invalid, plus unknown fields`, { json: { ...rest, [field]: 42, unknown: "x", id: UNKNOWN_ID } }],
  [`${field} only under __proto__`, { raw: `{"__proto__": {"${field}": "x"}, "constructor": {"prototype": 1}}` }]
]

/** As badStrings, for a field that may be left out (PATCH bodies, optional names). */
const badOptionalStrings = (field: string) =>
  badStrings(field).filter(([label]) => !label.includes("missing") && !label.includes("__proto__"))

/** Wrong types and out-of-range values for one JSON number field. */
const badNumbers = (field: string, rest: Record<string, unknown>): ReadonlyArray<readonly [string, Body]> => [
  [`${field} string`, { json: { ...rest, [field]: "10" } }],
  [`${field} boolean`, { json: { ...rest, [field]: true } }],
  [`${field} array`, { json: { ...rest, [field]: [10] } }],
  [`${field} object`, { json: { ...rest, [field]: { value: 10 } } }],
  [`${field} negative`, { json: { ...rest, [field]: -1 } }],
  [`${field} 1e309 (Infinity)`, { raw: JSON.stringify({ ...rest, [field]: 0 }).replace(/0}$/, "1e309}") }],
  [`${field} -1e309`, { raw: JSON.stringify({ ...rest, [field]: 0 }).replace(/0}$/, "-1e309}") }],
  [
    `${field} 9999999999999999999`,
    { raw: JSON.stringify({ ...rest, [field]: 0 }).replace(/0}$/, "9999999999999999999}") }
  ],
  [`${field} 1e400 digits`, { raw: JSON.stringify({ ...rest, [field]: 0 }).replace(/0}$/, `1${"0".repeat(400)}}`) }]
]

/** Fiscal codes the domain rule refuses (`rest` completes an otherwise valid body). */
const badFiscalCodes = (rest: Record<string, unknown>): ReadonlyArray<readonly [string, Body]> => [
  ["fiscalCode letters", { json: { ...rest, fiscalCode: "ABC123" } }],
  ["fiscalCode one digit", { json: { ...rest, fiscalCode: "1" } }],
  ["fiscalCode 11 digits", { json: { ...rest, fiscalCode: "12345678901" } }],
  ["fiscalCode only RO", { json: { ...rest, fiscalCode: "RO" } }],
  ["fiscalCode empty", { json: { ...rest, fiscalCode: "" } }],
  ["fiscalCode a number", { json: { ...rest, fiscalCode: 22505268 } }],
  ["fiscalCode an array", { json: { ...rest, fiscalCode: ["22505268"] } }],
  ["fiscalCode with NUL", { json: { ...rest, fiscalCode: "2250\u00005268" } }],
  ["fiscalCode 100,000 characters", { json: { ...rest, fiscalCode: HUGE } }]
]

/** One case per labelled body, all sent to `path`. */
const withBodies = (
  method: Case["method"],
  route: string,
  path: (ctx: Ctx) => string,
  auth: Auth,
  bodies: ReadonlyArray<readonly [string, Body | ((ctx: Ctx) => Body)]>
): Array<Case> =>
  bodies.map(([label, body]) => ({
    name: `${method} ${route}: ${label}`,
    method,
    path,
    auth,
    body: typeof body === "function" ? body : () => body
  }))

/** Malformed path ids, for every `/:id` route. */
const badIds: ReadonlyArray<readonly [string, string]> = [
  ["not a UUID", "not-a-uuid"],
  ["a number", "12345"],
  ["UUID without dashes", "0000000000004000800000000000000a"],
  ["UUID in braces", `%7B${UNKNOWN_ID}%7D`],
  ["UUID with a trailing character", `${UNKNOWN_ID}0`],
  ["UUID with a NUL", `${UNKNOWN_ID}%00`],
  ["8,000 characters", LONG],
  ["encoded slash", "..%2F..%2Fetc"],
  ...BAD_ESCAPES.map((e): readonly [string, string] => [`bad escape ${e}`, `abc${e}`])
]

/** One case per malformed id (and an unknown uppercase UUID), with an optional valid body. */
const withBadIds = (
  method: Case["method"],
  route: string,
  auth: Auth,
  path: (id: string, ctx: Ctx) => string,
  body?: (ctx: Ctx) => Body
): Array<Case> => [
  ...badIds.map(([label, id]) => ({
    name: `${method} ${route}: id ${label}`,
    method,
    auth,
    path: (ctx: Ctx) => path(id, ctx),
    ...(body === undefined ? {} : { body })
  })),
  {
    name: `${method} ${route}: unknown uppercase UUID`,
    method,
    auth,
    path: (ctx: Ctx) => path(randomUUID().toUpperCase(), ctx),
    ...(body === undefined ? {} : { body })
  }
]

/** Query strings for the key API's list (labelled); each names what is wrong with it. */
const tendersQueries = (ctx: Ctx): ReadonlyArray<readonly [string, string]> => {
  const company = `companyId=${ctx.key.companyId}`
  return [
    ["no companyId", ""],
    ["companyId empty", "companyId="],
    ["companyId not a UUID", "companyId=abc"],
    ["companyId a number", "companyId=12345"],
    ["companyId 8,000 characters", `companyId=${LONG}`],
    ["companyId repeated", `${company}&${company}`],
    ["companyId in array syntax", `companyId[]=${ctx.key.companyId}`],
    ["companyId in object syntax", `companyId[a]=${ctx.key.companyId}`],
    ["companyId unknown", `companyId=${UNKNOWN_ID}`],
    ["companyId unknown, uppercase", `companyId=${randomUUID().toUpperCase()}`],
    ...BAD_ESCAPES.map((e): readonly [string, string] => [`companyId bad escape ${e}`, `companyId=${e}`]),
    ...["-1", "101", "1.5", "1e309", "-1e309", "9999999999999999999", "NaN", "Infinity", "abc", "", " "].map(
      (v): readonly [string, string] => [
        `minScore=${JSON.stringify(v)}`,
        `${company}&minScore=${encodeURIComponent(v)}`
      ]
    ),
    ...["0", "-1", "101", "1.5", "1e309", "9999999999999999999", "NaN", "-Infinity", "0x10x", "%00"].map(
      (v): readonly [string, string] => [`limit=${JSON.stringify(v)}`, `${company}&limit=${v}`]
    ),
    ["limit repeated", `${company}&limit=1&limit=2`],
    ["minScore repeated", `${company}&minScore=1&minScore=2`],
    ...STATUS_VALUES.map((v): readonly [string, string] => [`status=${JSON.stringify(v)}`, `${company}&status=${v}`]),
    ["status repeated", `${company}&status=open&status=closed`],
    ["cursor garbage", `${company}&cursor=garbage`],
    ["cursor dots only", `${company}&cursor=..`],
    ["cursor empty", `${company}&cursor=`],
    ["cursor 8,000 characters", `${company}&cursor=${LONG}.${LONG}`],
    ["cursor with NUL", `${company}&cursor=a%00.b`],
    ["cursor with an invalid escape", `${company}&cursor=%ED%A0%80.%FF`],
    ["cursor repeated", `${company}&cursor=a.b&cursor=c.d`],
    [
      "cursor forged (valid base64url JSON, bad signature)",
      `${company}&cursor=${Buffer.from(JSON.stringify({ v: 1, q: "x", k: [1, "a", "b"], b: "1" })).toString("base64url")}.AAAA`
    ]
  ]
}

/** Values `status` (key API list and export: open, closed, all) refuses. */
const STATUS_VALUES = ["OPEN", "pending", "", "open,closed", "%FF", "%00", "open%20"]

const exportQueries = (ctx: Ctx): ReadonlyArray<readonly [string, string]> => {
  const base = `companyId=${ctx.key.companyId}`
  const range = `${base}&from=2026-01-01&to=2026-01-31`
  const dates = [
    "2026-13-01",
    "2026-00-10",
    "2026-02-30",
    "2026-1-1",
    "20260101",
    "0000-01-01",
    "+002026-01-01",
    "-002026-01-01",
    "2026-01-01T00:00:00Z",
    "2026-01-01%00",
    "99999-01-01",
    "",
    LONG
  ]
  return [
    ["no parameters", ""],
    ["no dates", base],
    ["companyId not a UUID", "companyId=abc&from=2026-01-01&to=2026-01-31"],
    ["companyId unknown", `companyId=${UNKNOWN_ID}&from=2026-01-01&to=2026-01-31`],
    ...dates.map((d): readonly [string, string] => [`from=${d.slice(0, 20)}`, `${base}&from=${d}&to=2026-01-31`]),
    ...dates.map((d): readonly [string, string] => [`to=${d.slice(0, 20)}`, `${base}&from=2026-01-01&to=${d}`]),
    ["to before from", `${base}&from=2026-02-01&to=2026-01-01`],
    ["range over 90 days", `${base}&from=2026-01-01&to=2026-12-31`],
    ["range across the whole calendar", `${base}&from=0001-01-01&to=9999-12-31`],
    ["from repeated", `${base}&from=2026-01-01&from=2026-01-02&to=2026-01-31`],
    ["to repeated", `${base}&from=2026-01-01&to=2026-01-30&to=2026-01-31`],
    ...STATUS_VALUES.map((v): readonly [string, string] => [`status=${JSON.stringify(v)}`, `${range}&status=${v}`]),
    ...["csv%20", "CSV", "xml", "", "json&format=csv"].map((f): readonly [string, string] => [
      `format=${JSON.stringify(f)}`,
      `${range}&format=${f}`
    ]),
    ...["0", "-1", "1001", "1.5", "1e309", "9999999999999999999", "NaN", "abc", ""].map(
      (v): readonly [string, string] => [`limit=${JSON.stringify(v)}`, `${range}&limit=${v}`]
    ),
    ["limit repeated", `${range}&limit=1&limit=2`],
    ["cursor garbage", `${range}&cursor=garbage`],
    ["cursor 8,000 characters", `${range}&cursor=${LONG}.${LONG}`],
    ["cursor with an invalid escape", `${range}&cursor=%FF.%ED%A0%80`],
    ...BAD_ESCAPES.map((e): readonly [string, string] => [
      `companyId bad escape ${e}`,
      `companyId=${e}&from=2026-01-01&to=2026-01-31`
    ])
  ]
}

const alertsQueries = (ctx: Ctx): ReadonlyArray<readonly [string, string]> => {
  const dates = [
    "2026-13-01",
    "2026-02-30",
    "0000-01-01",
    "+002026-01-01",
    "2026-01-01T25:00:00Z",
    "2026-01-01T00:00:00+99:99",
    "2026-01-01T00:00:00.0000000000Z",
    "2026-01-01X",
    "yesterday",
    "",
    LONG,
    "%00",
    "%FF"
  ]
  return [
    ...["TRUE", "1", "yes", "", "true&unread=false"].map((v): readonly [string, string] => [
      `unread=${JSON.stringify(v)}`,
      `unread=${v}`
    ]),
    ["watchlistId not a UUID", "watchlistId=abc"],
    ["watchlistId 8,000 characters", `watchlistId=${LONG}`],
    ["watchlistId unknown", `watchlistId=${UNKNOWN_ID}`],
    ["watchlistId repeated", `watchlistId=${ctx.watchlistId}&watchlistId=${ctx.watchlistId}`],
    ...BAD_ESCAPES.map((e): readonly [string, string] => [`watchlistId bad escape ${e}`, `watchlistId=${e}`]),
    ...["go", "GO,SKIP", "MAYBE", "", "GO&verdict=SKIP"].map((v): readonly [string, string] => [
      `verdict=${JSON.stringify(v)}`,
      `verdict=${v}`
    ]),
    ...dates.map((d): readonly [string, string] => [`dateFrom=${d.slice(0, 30)}`, `dateFrom=${d}`]),
    ["dateFrom repeated", "dateFrom=2026-01-01&dateFrom=2026-01-02"],
    ...["0", "-1", "1.5", "1e309", "9999999999999999999", "1000001", "NaN", "abc", ""].map(
      (v): readonly [string, string] => [`page=${JSON.stringify(v)}`, `page=${v}`]
    ),
    ...["0", "-1", "101", "1.5", "1e309", "9999999999999999999", "Infinity", "abc", ""].map(
      (v): readonly [string, string] => [`limit=${JSON.stringify(v)}`, `limit=${v}`]
    ),
    ["page repeated", "page=1&page=2"],
    ["limit repeated", "limit=1&limit=2"]
  ]
}

/** Query strings for the app's company tenders list. */
const appTendersQueries = (): ReadonlyArray<readonly [string, string]> => [
  ...["-1", "101", "1.5", "1e309", "9999999999999999999", "NaN", "abc", "", " "].map((v): readonly [string, string] => [
    `minScore=${JSON.stringify(v)}`,
    `minScore=${encodeURIComponent(v)}`
  ]),
  ...["0", "-1", "101", "1.5", "1e309", "NaN", "abc", "", "%00"].map((v): readonly [string, string] => [
    `limit=${JSON.stringify(v)}`,
    `limit=${v}`
  ]),
  ...["OPEN", "pending", "", "open&status=closed", "%FF"].map((v): readonly [string, string] => [
    `status=${JSON.stringify(v)}`,
    `status=${v}`
  ]),
  ["minScore repeated", "minScore=1&minScore=2"],
  ...["", "%20%20", "%00", "x".repeat(201)].map((v): readonly [string, string] => [
    `q=${JSON.stringify(v.slice(0, 20))}`,
    `q=${v}`
  ]),
  ...["Cluj-Napoca", "cluj", "", "RO113", "%FF"].map((v): readonly [string, string] => [
    `county=${JSON.stringify(v)}`,
    `county=${v}`
  ]),
  ...["45000000", "4500000-7", "45000000-77", "", "%00"].map((v): readonly [string, string] => [
    `cpv=${JSON.stringify(v)}`,
    `cpv=${v}`
  ]),
  ...["2026-02-30", "0000-01-01", "tomorrow", "", "2026-1-1"].flatMap(
    (v): ReadonlyArray<readonly [string, string]> => [
      [`deadlineFrom=${JSON.stringify(v)}`, `deadlineFrom=${v}`],
      [`deadlineTo=${JSON.stringify(v)}`, `deadlineTo=${v}`]
    ]
  ),
  ["deadlineTo before deadlineFrom", "deadlineFrom=2026-05-02&deadlineTo=2026-05-01"],
  ...["title", "", "SCORE", "score,value"].map((v): readonly [string, string] => [
    `sort=${JSON.stringify(v)}`,
    `sort=${v}`
  ]),
  ["sort repeated", "sort=score&sort=value"],
  ["cursor garbage", "cursor=garbage"],
  ["cursor empty", "cursor="],
  // (Two LONGs plus the path and the access token would pass node's 16 KiB header limit: a 431.)
  ["cursor 6,001 characters", `cursor=${LONG.slice(0, 3000)}.${LONG.slice(0, 3000)}`],
  ["cursor with an invalid escape", "cursor=%ED%A0%80.%FF"],
  ["cursor repeated", "cursor=a.b&cursor=c.d"]
]

/** Query strings for the CPV search. */
const cpvQueries = (): ReadonlyArray<readonly [string, string]> => [
  ["no q", ""],
  ["q empty", "q="],
  ["q only spaces", "q=%20%20%20"],
  ["q 101 characters", `q=${"x".repeat(101)}`],
  ["q 8,000 characters", `q=${LONG}`],
  ["q with NUL", "q=a%00b"],
  ["q repeated", "q=a&q=b"],
  ...["0", "-1", "51", "1.5", "1e309", "NaN", "abc", ""].map((v): readonly [string, string] => [
    `limit=${JSON.stringify(v)}`,
    `q=asfalt&limit=${v}`
  ])
]

/** Query cases are built from the fixtures, so each table is one `it` that names every failing case. */
const queryTables: ReadonlyArray<{
  readonly name: string
  readonly auth: Auth
  readonly route: (ctx: Ctx) => string
  readonly queries: (ctx: Ctx) => ReadonlyArray<readonly [string, string]>
}> = [
  { name: "GET /api/v1/tenders", auth: "key", route: () => "/api/v1/tenders", queries: tendersQueries },
  {
    name: "GET /api/v1/tenders/:id/score",
    auth: "key",
    route: (ctx) => `/api/v1/tenders/${ctx.tenderId}/score`,
    queries: (ctx) =>
      tendersQueries(ctx).filter(([label]) => label.startsWith("no companyId") || label.startsWith("companyId"))
  },
  { name: "GET /api/v1/export/tenders", auth: "key", route: () => "/api/v1/export/tenders", queries: exportQueries },
  { name: "GET /api/v1/alerts", auth: "token", route: () => "/api/v1/alerts", queries: alertsQueries },
  {
    name: "GET /api/v1/app/companies/:companyId/tenders",
    auth: "token",
    route: (ctx) => `/api/v1/app/companies/${ctx.account.companyId}/tenders`,
    queries: appTendersQueries
  },
  { name: "GET /api/v1/cpv", auth: "token", route: () => "/api/v1/cpv", queries: cpvQueries }
]

const watchlistBody = { name: "Valid name" }
const WEBHOOK_URL = "https://hooks.example.com/tss"
const WEBHOOK_SECRET = "0123456789abcdef0123456789abcdef"
const webhookBody = { url: WEBHOOK_URL, secret: WEBHOOK_SECRET, events: ["tender.matched"] }

const reportBody = { date_from: "2026-01-01", date_to: "2026-01-31" }

const bodyCases: ReadonlyArray<Case> = [
  // Auth: login and refresh (no credentials needed).
  ...withBodies("POST", "/api/v1/auth/login", () => "/api/v1/auth/login", "none", [
    ...malformedBodies,
    ...badStrings("email", { password: "correct horse battery staple" }),
    ...badStrings("password", { email: "someone@example.com" })
  ]),
  ...withBodies("POST", "/api/v1/auth/refresh", () => "/api/v1/auth/refresh", "none", [
    ...malformedBodies,
    ...badStrings("refreshToken"),
    ["refreshToken with control characters", { json: { refreshToken: `rt_${CONTROL}` } }],
    ["refreshToken with a lone surrogate", { json: { refreshToken: `rt_${SURROGATE}` } }],
    ["refreshToken of another format", { json: { refreshToken: `at1.${"A".repeat(40)}.B` } }]
  ]),
  // Watchlists: create and update.
  ...withBodies("POST", "/api/v1/watchlists", () => "/api/v1/watchlists", "token", [
    ...malformedBodies,
    ...badStrings("name"),
    ["name empty", { json: { name: "" } }],
    ["name only spaces", { json: { name: "   \t\n " } }],
    ["name 201 characters", { json: { name: "n".repeat(201) } }],
    ["cpvCodes a string", { json: { ...watchlistBody, cpvCodes: "45000000-7" } }],
    ["cpvCodes with a number", { json: { ...watchlistBody, cpvCodes: [45000000] } }],
    ["cpvCodes with null", { json: { ...watchlistBody, cpvCodes: [null] } }],
    ["cpvCodes malformed", { json: { ...watchlistBody, cpvCodes: ["4500-0000"] } }],
    ["cpvCodes wrong check digit", { json: { ...watchlistBody, cpvCodes: ["45000000-1"] } }],
    ["cpvCodes unknown code", { json: { ...watchlistBody, cpvCodes: ["99999999"] } }],
    ["cpvCodes with NUL", { json: { ...watchlistBody, cpvCodes: ["45000000\u0000"] } }],
    ["cpvCodes 101 items", { json: { ...watchlistBody, cpvCodes: Array(101).fill("45000000-7") } }],
    ["cpvCodes 100,000 characters", { json: { ...watchlistBody, cpvCodes: [HUGE] } }],
    ["cpvCodes an object", { json: { ...watchlistBody, cpvCodes: { 0: "45000000-7" } } }],
    ["keywords a string", { json: { ...watchlistBody, keywords: "asfalt" } }],
    ["keywords with an empty one", { json: { ...watchlistBody, keywords: ["  "] } }],
    ["keywords with a number", { json: { ...watchlistBody, keywords: [1] } }],
    ["keywords 100,000 characters", { json: { ...watchlistBody, keywords: [HUGE] } }],
    ["keywords with NUL", { json: { ...watchlistBody, keywords: [NUL] } }],
    ["keywords 51 items", { json: { ...watchlistBody, keywords: Array(51).fill("k") } }],
    ["keywords 10,000 items", { json: { ...watchlistBody, keywords: Array(10_000).fill("k") } }],
    ...badNumbers("minValue", watchlistBody),
    ...badNumbers("maxValue", watchlistBody),
    ["minValue 1e16", { json: { ...watchlistBody, minValue: 1e16 } }],
    ["minValue above maxValue", { json: { ...watchlistBody, minValue: 10, maxValue: 5 } }],
    ...badNumbers("minScore", watchlistBody),
    ["minScore 101", { json: { ...watchlistBody, minScore: 101 } }],
    ["minScore 50.5", { json: { ...watchlistBody, minScore: 50.5 } }],
    ["authorityId not a UUID", { json: { ...watchlistBody, authorityId: "abc" } }],
    ["authorityId a number", { json: { ...watchlistBody, authorityId: 1 } }],
    ["authorityId unknown", { json: { ...watchlistBody, authorityId: UNKNOWN_ID } }],
    ["authorityId unknown, uppercase", { json: { ...watchlistBody, authorityId: randomUUID().toUpperCase() } }],
    ["authorityId with NUL", { json: { ...watchlistBody, authorityId: `${UNKNOWN_ID}\u0000` } }],
    ["companyId null", { json: { ...watchlistBody, companyId: null } }],
    ["companyId not a UUID", { json: { ...watchlistBody, companyId: "abc" } }],
    ["companyId unknown", { json: { ...watchlistBody, companyId: UNKNOWN_ID } }],
    [
      "companyId of another tenant (the key fixture's)",
      (ctx) => ({ json: { ...watchlistBody, companyId: ctx.key.companyId } })
    ],
    ["duplicate keys, the last invalid", { raw: '{"name": "ok", "name": 5}' }],
    [
      `an unknown field one level past the nesting limit`,
      { raw: `{"name": "Deep", "extra": ${deepArray(MAX_JSON_DEPTH)}}` }
    ]
  ]),
  ...withBodies("PATCH", "/api/v1/watchlists/:id", (ctx) => `/api/v1/watchlists/${ctx.watchlistId}`, "token", [
    ...malformedBodies,
    ...badOptionalStrings("name"),
    ["name empty", { json: { name: "" } }],
    ["cpvCodes null", { json: { cpvCodes: null } }],
    ["cpvCodes unknown code", { json: { cpvCodes: ["99999999"] } }],
    ["keywords null", { json: { keywords: null } }],
    ["keywords 51 items", { json: { keywords: Array(51).fill("k") } }],
    ["minValue above maxValue", { json: { minValue: 10, maxValue: 5 } }],
    ["minValue above the stored maxValue (100)", { json: { minValue: 1000 } }],
    ...badNumbers("minValue", {}),
    ...badNumbers("minScore", {}),
    ["authorityId unknown", { json: { authorityId: UNKNOWN_ID } }],
    ["companyId unknown", { json: { companyId: UNKNOWN_ID } }],
    ["companyId null", { json: { companyId: null } }],
    ["name null, plus unknown fields", { json: { name: null, id: UNKNOWN_ID, active: false, createdAt: "x" } }]
  ]),
  ...withBadIds(
    "PATCH",
    "/api/v1/watchlists/:id",
    "token",
    (id) => `/api/v1/watchlists/${id}`,
    () => ({
      json: { name: "Renamed" }
    })
  ),
  ...withBadIds("DELETE", "/api/v1/watchlists/:id", "token", (id) => `/api/v1/watchlists/${id}`),
  // Companies.
  ...withBadIds("GET", "/api/v1/companies/:id", "token", (id) => `/api/v1/companies/${id}`),
  ...withBodies("PATCH", "/api/v1/companies/:id", (ctx) => `/api/v1/companies/${ctx.account.companyId}`, "token", [
    ...malformedBodies,
    ...badOptionalStrings("description"),
    ["description 10,001 characters", { json: { description: "d".repeat(10_001) } }],
    ...badOptionalStrings("name"),
    ["name empty", { json: { name: "" } }],
    ["name only spaces", { json: { name: "   " } }],
    ["valid description with an invalid name", { json: { description: "changed", name: "" } }]
  ]),
  ...withBadIds(
    "PATCH",
    "/api/v1/companies/:id",
    "token",
    (id) => `/api/v1/companies/${id}`,
    () => ({
      json: { description: "x" }
    })
  ),
  ...withBodies("PATCH", "/api/v1/companies/:id", (ctx) => `/api/v1/companies/${ctx.account.companyId}`, "token", [
    ...badFiscalCodes({}),
    ["active a string", { json: { active: "false" } }],
    ["active a number", { json: { active: 0 } }],
    ["active null", { json: { active: null } }],
    ["valid name with an invalid active", { json: { name: "Renamed", active: "yes" } }]
  ]),
  ...withBodies("POST", "/api/v1/companies", () => "/api/v1/companies", "token", [
    ...malformedBodies,
    ...badStrings("name"),
    ["name empty", { json: { name: "" } }],
    ["name only spaces", { json: { name: "   " } }],
    ["name 201 characters", { json: { name: "n".repeat(201) } }],
    ...badOptionalStrings("description").map(([label, body]): readonly [string, Body] => [
      label,
      "json" in body ? { json: { name: "Valid", ...(body.json as object) } } : body
    ]),
    ["description 10,001 characters", { json: { name: "Valid", description: "d".repeat(10_001) } }],
    ...badFiscalCodes({ name: "Valid" })
  ]),
  ...withBadIds("DELETE", "/api/v1/companies/:id", "token", (id) => `/api/v1/companies/${id}`),
  // The app's scored tenders.
  ...withBadIds(
    "GET",
    "/api/v1/app/companies/:companyId/tenders",
    "token",
    (id) => `/api/v1/app/companies/${id}/tenders`
  ),
  ...withBadIds(
    "GET",
    "/api/v1/app/companies/:companyId/tenders/:tenderId (companyId)",
    "token",
    (id, ctx) => `/api/v1/app/companies/${id}/tenders/${ctx.tenderId}`
  ),
  ...withBadIds(
    "GET",
    "/api/v1/app/companies/:companyId/tenders/:tenderId (tenderId)",
    "token",
    (id, ctx) => `/api/v1/app/companies/${ctx.account.companyId}/tenders/${id}`
  ),
  // Alerts.
  ...withBodies("PATCH", "/api/v1/alerts/:id", (ctx) => `/api/v1/alerts/${ctx.alertId}`, "token", [
    ...malformedBodies,
    ["read missing", { json: {} }],
    ["read null", { json: { read: null } }],
    ["read a string", { json: { read: "true" } }],
    ["read a number", { json: { read: 1 } }],
    ["read an array", { json: { read: [true] } }],
    ["read an object", { json: { read: { value: true } } }],
    ["read 100,000 characters", { json: { read: HUGE } }],
    ["read invalid, plus unknown fields", { json: { read: "yes", id: UNKNOWN_ID, score: 100 } }]
  ]),
  ...withBadIds(
    "PATCH",
    "/api/v1/alerts/:id",
    "token",
    (id) => `/api/v1/alerts/${id}`,
    () => ({ json: { read: true } })
  ),
  // API-key settings.
  ...withBodies("POST", "/api/v1/settings/api-keys", () => "/api/v1/settings/api-keys", "token", [
    ...malformedBodies,
    ...badOptionalStrings("name"),
    ["name 101 characters", { json: { name: "k".repeat(101) } }]
  ]),
  ...withBadIds("DELETE", "/api/v1/settings/api-keys/:id", "token", (id) => `/api/v1/settings/api-keys/${id}`),
  // Daily digest settings.
  ...withBodies("PUT", "/api/v1/settings/digest", () => "/api/v1/settings/digest", "token", [
    ...malformedBodies,
    ["hour 24", { json: { enabled: true, hour: 24 } }],
    ["hour a string", { json: { enabled: true, hour: "8" } }],
    ["hour 1e308", { json: { enabled: true, hour: 1e308 } }],
    ["enabled missing", { json: { hour: 8 } }],
    ["enabled a string", { json: { enabled: "true" } }]
  ]),
  // Webhooks: registration (key API) and the dashboard's retry (access token).
  ...withBodies("POST", "/api/v1/webhooks", () => "/api/v1/webhooks", "key", [
    ...malformedBodies,
    ...badStrings("url", { secret: WEBHOOK_SECRET, events: ["tender.matched"] }),
    ...badStrings("secret", { url: WEBHOOK_URL, events: ["tender.matched"] }),
    ["url http://", { json: { ...webhookBody, url: "http://hooks.example.com/" } }],
    ["url relative", { json: { ...webhookBody, url: "/hooks" } }],
    ["url javascript:", { json: { ...webhookBody, url: "javascript:alert(1)" } }],
    ["url with credentials", { json: { ...webhookBody, url: "https://u:p@hooks.example.com/" } }],
    ["url with a lone surrogate", { json: { ...webhookBody, url: `https://hooks.example.com/${SURROGATE}` } }],
    ["url with control characters", { json: { ...webhookBody, url: `https://hooks.example.com/${CONTROL}` } }],
    ["url 8,000 characters", { json: { ...webhookBody, url: `https://hooks.example.com/${LONG}` } }],
    ["secret 31 characters", { json: { ...webhookBody, secret: "s".repeat(31) } }],
    ["secret with a lone surrogate", { json: { ...webhookBody, secret: `${WEBHOOK_SECRET}${SURROGATE}` } }],
    ["events missing", { json: { url: WEBHOOK_URL, secret: WEBHOOK_SECRET } }],
    ["events null", { json: { ...webhookBody, events: null } }],
    ["events empty", { json: { ...webhookBody, events: [] } }],
    ["events a string", { json: { ...webhookBody, events: "tender.matched" } }],
    ["events unknown", { json: { ...webhookBody, events: ["tender.created"] } }],
    ["events with a duplicate", { json: { ...webhookBody, events: ["tender.matched", "tender.matched"] } }],
    ["events with null", { json: { ...webhookBody, events: [null] } }],
    ["events 10,000 items", { json: { ...webhookBody, events: Array(10_000).fill("tender.matched") } }],
    ["events with NUL", { json: { ...webhookBody, events: [`tender.matched${NUL}`] } }]
  ]),
  ...withBadIds("DELETE", "/api/v1/webhooks/:id", "key", (id) => `/api/v1/webhooks/${id}`),
  ...withBodies("POST", "/api/v1/settings/webhooks", () => "/api/v1/settings/webhooks", "token", [
    ...malformedBodies,
    ...badStrings("url", { secret: WEBHOOK_SECRET, events: ["tender.matched"] }),
    ...badStrings("secret", { url: WEBHOOK_URL, events: ["tender.matched"] }),
    ["url http://", { json: { ...webhookBody, url: "http://hooks.example.com/" } }],
    ["url with credentials", { json: { ...webhookBody, url: "https://u:p@hooks.example.com/" } }],
    ["secret 31 characters", { json: { ...webhookBody, secret: "s".repeat(31) } }],
    ["events empty", { json: { ...webhookBody, events: [] } }],
    ["events unknown", { json: { ...webhookBody, events: ["tender.created"] } }],
    ["events with a duplicate", { json: { ...webhookBody, events: ["tender.matched", "tender.matched"] } }]
  ]),
  ...withBadIds("DELETE", "/api/v1/settings/webhooks/:id", "token", (id) => `/api/v1/settings/webhooks/${id}`),
  ...withBadIds(
    "GET",
    "/api/v1/settings/webhooks/:id/deliveries",
    "token",
    (id) => `/api/v1/settings/webhooks/${id}/deliveries`
  ),
  ...withBadIds(
    "GET",
    "/api/v1/settings/webhooks/:id/deliveries?before",
    "token",
    (id) => `/api/v1/settings/webhooks/${UNKNOWN_ID}/deliveries?before=${id}`
  ),
  // PDF reports from the app.
  ...withBodies(
    "POST",
    "/api/v1/app/companies/:companyId/reports",
    (ctx) => `/api/v1/app/companies/${ctx.account.companyId}/reports`,
    "token",
    [
      ...malformedBodies,
      ...badStrings("date_from", { date_to: "2026-10-31" }),
      ["date_to before date_from", { json: { date_from: "2026-10-31", date_to: "2026-10-01" } }],
      ["date_from that does not exist", { json: { date_from: "2026-02-30", date_to: "2026-03-31" } }],
      ["min_score 101", { json: { date_from: "2026-10-01", date_to: "2026-10-31", min_score: 101 } }],
      ["min_score a string", { json: { date_from: "2026-10-01", date_to: "2026-10-31", min_score: "50" } }],
      ["watchlist_id not a UUID", { json: { date_from: "2026-10-01", date_to: "2026-10-31", watchlist_id: "x" } }],
      ["watchlist_id unknown", { json: { date_from: "2026-10-01", date_to: "2026-10-31", watchlist_id: UNKNOWN_ID } }]
    ]
  ),
  ...withBadIds(
    "POST",
    "/api/v1/app/companies/:companyId/reports",
    "token",
    (id) => `/api/v1/app/companies/${id}/reports`,
    () => ({ json: { date_from: "2026-10-01", date_to: "2026-10-31" } })
  ),
  ...withBadIds("GET", "/api/v1/app/reports/:jobId", "token", (id) => `/api/v1/app/reports/${id}`),
  ...withBadIds(
    "POST",
    "/api/v1/app/reports/:jobId/download-url",
    "token",
    (id) => `/api/v1/app/reports/${id}/download-url`
  ),
  ...withBadIds(
    "POST",
    "/api/v1/settings/webhooks/deliveries/:deliveryId/retry",
    "token",
    (id) => `/api/v1/settings/webhooks/deliveries/${id}/retry`
  ),
  // PDF reports (key API), and the unauthenticated token download.
  ...withBodies("POST", "/api/v1/reports/:companyId/pdf", (ctx) => `/api/v1/reports/${ctx.key.companyId}/pdf`, "key", [
    ...malformedBodies,
    ...badStrings("date_from", { date_to: "2026-01-31" }),
    ...badStrings("date_to", { date_from: "2026-01-01" }),
    ...badNumbers("min_score", { date_from: "2026-01-01", date_to: "2026-01-31" }),
    ["min_score 101", { json: { ...reportBody, min_score: 101 } }],
    ["min_score 50.5", { json: { ...reportBody, min_score: 50.5 } }],
    ["date_from after date_to", { json: { date_from: "2026-02-01", date_to: "2026-01-31" } }],
    ["date_from 2026-02-30", { json: { ...reportBody, date_from: "2026-02-30" } }],
    ["date_from 0000-01-01", { json: { ...reportBody, date_from: "0000-01-01" } }],
    ["date_to with a time", { json: { ...reportBody, date_to: "2026-01-31T10:00:00Z" } }],
    ["watchlist_id not a UUID", { json: { ...reportBody, watchlist_id: "abc" } }],
    ["watchlist_id a number", { json: { ...reportBody, watchlist_id: 7 } }],
    ["watchlist_id unknown", { json: { ...reportBody, watchlist_id: UNKNOWN_ID } }],
    ["watchlist_id of another company", (ctx) => ({ json: { ...reportBody, watchlist_id: ctx.watchlistId } })]
  ]),
  ...withBadIds(
    "POST",
    "/api/v1/reports/:companyId/pdf",
    "key",
    (id) => `/api/v1/reports/${id}/pdf`,
    () => ({
      json: reportBody
    })
  ),
  ...withBadIds("GET", "/api/v1/reports/jobs/:jobId/status", "key", (id) => `/api/v1/reports/jobs/${id}/status`),
  ...withBadIds("GET", "/api/v1/reports/jobs/:jobId/download", "key", (id) => `/api/v1/reports/jobs/${id}/download`),
  ...withBadIds("GET", "/api/v1/reports/download/:token", "none", (id) => `/api/v1/reports/download/${id}`),
  // Key API path ids.
  ...withBadIds(
    "GET",
    "/api/v1/tenders/:id/score",
    "key",
    (id, ctx) => `/api/v1/tenders/${id}/score?companyId=${ctx.key.companyId}`
  )
]

/** Malformed credentials on every authenticated route: each is a 401 in the uniform body, never a 5xx. */
const badAuthorizations: ReadonlyArray<readonly [string, string]> = [
  ["another scheme", "Basic Zm9vOmJhcg=="],
  ["Bearer without a token", "Bearer "],
  ["Bearer with 8,000 characters", `Bearer ${LONG}`],
  ["Bearer with spaces inside", "Bearer a b c"],
  ["Bearer with a Latin-1 byte", "Bearer \u00e9\u00ff"],
  ["an access-token lookalike", `Bearer at1.${Buffer.from("{").toString("base64url")}.${"A".repeat(43)}`],
  ["an access-token lookalike with empty parts", "Bearer at1.."],
  ["an API-key lookalike, uppercase hex", `Bearer svc_${"A".repeat(64)}`],
  ["an API-key lookalike, too long", `Bearer svc_${"a".repeat(65)}`],
  ["an API-key lookalike, not hex", `Bearer svc_${"z".repeat(64)}`]
]

const authenticatedRoutes: ReadonlyArray<readonly [Case["method"], string, (ctx: Ctx) => string]> = [
  ["GET", "/api/v1/tenders", (ctx) => `/api/v1/tenders?companyId=${ctx.key.companyId}`],
  ["GET", "/api/v1/tenders/:id/score", (ctx) => `/api/v1/tenders/${ctx.tenderId}/score?companyId=${ctx.key.companyId}`],
  [
    "GET",
    "/api/v1/export/tenders",
    (ctx) => `/api/v1/export/tenders?companyId=${ctx.key.companyId}&from=2026-01-01&to=2026-01-31`
  ],
  ["POST", "/api/v1/auth/logout", () => "/api/v1/auth/logout"],
  ["GET", "/api/v1/watchlists", () => "/api/v1/watchlists"],
  ["POST", "/api/v1/watchlists", () => "/api/v1/watchlists"],
  ["PATCH", "/api/v1/watchlists/:id", (ctx) => `/api/v1/watchlists/${ctx.watchlistId}`],
  ["DELETE", "/api/v1/watchlists/:id", (ctx) => `/api/v1/watchlists/${ctx.watchlistId}`],
  ["GET", "/api/v1/companies", () => "/api/v1/companies"],
  ["GET", "/api/v1/companies/:id", (ctx) => `/api/v1/companies/${ctx.account.companyId}`],
  ["PATCH", "/api/v1/companies/:id", (ctx) => `/api/v1/companies/${ctx.account.companyId}`],
  ["POST", "/api/v1/companies", () => "/api/v1/companies"],
  ["DELETE", "/api/v1/companies/:id", (ctx) => `/api/v1/companies/${ctx.account.companyId}`],
  [
    "GET",
    "/api/v1/app/companies/:companyId/tenders",
    (ctx) => `/api/v1/app/companies/${ctx.account.companyId}/tenders`
  ],
  [
    "GET",
    "/api/v1/app/companies/:companyId/tenders/:tenderId",
    (ctx) => `/api/v1/app/companies/${ctx.account.companyId}/tenders/${ctx.tenderId}`
  ],
  ["GET", "/api/v1/cpv", () => "/api/v1/cpv?q=asfalt"],
  ["GET", "/api/v1/settings/credits", () => "/api/v1/settings/credits"],
  ["GET", "/api/v1/app/reports", () => "/api/v1/app/reports"],
  [
    "POST",
    "/api/v1/app/companies/:companyId/reports",
    (ctx) => `/api/v1/app/companies/${ctx.account.companyId}/reports`
  ],
  ["GET", "/api/v1/app/reports/:jobId", () => `/api/v1/app/reports/${UNKNOWN_ID}`],
  ["POST", "/api/v1/app/reports/:jobId/download-url", () => `/api/v1/app/reports/${UNKNOWN_ID}/download-url`],
  ["GET", "/api/v1/alerts", () => "/api/v1/alerts"],
  ["PATCH", "/api/v1/alerts/mark-all-read", () => "/api/v1/alerts/mark-all-read"],
  ["PATCH", "/api/v1/alerts/:id", (ctx) => `/api/v1/alerts/${ctx.alertId}`],
  ["POST", "/api/v1/settings/api-keys", () => "/api/v1/settings/api-keys"],
  ["GET", "/api/v1/settings/api-keys", () => "/api/v1/settings/api-keys"],
  ["DELETE", "/api/v1/settings/api-keys/:id", () => `/api/v1/settings/api-keys/${UNKNOWN_ID}`],
  ["POST", "/api/v1/webhooks", () => "/api/v1/webhooks"],
  ["GET", "/api/v1/webhooks", () => "/api/v1/webhooks"],
  ["DELETE", "/api/v1/webhooks/:id", () => `/api/v1/webhooks/${UNKNOWN_ID}`],
  ["GET", "/api/v1/settings/webhooks", () => "/api/v1/settings/webhooks"],
  ["POST", "/api/v1/settings/webhooks", () => "/api/v1/settings/webhooks"],
  ["DELETE", "/api/v1/settings/webhooks/:id", () => `/api/v1/settings/webhooks/${UNKNOWN_ID}`],
  ["GET", "/api/v1/settings/webhooks/:id/deliveries", () => `/api/v1/settings/webhooks/${UNKNOWN_ID}/deliveries`],
  [
    "POST",
    "/api/v1/settings/webhooks/deliveries/:deliveryId/retry",
    () => `/api/v1/settings/webhooks/deliveries/${UNKNOWN_ID}/retry`
  ],
  ["POST", "/api/v1/reports/:companyId/pdf", (ctx) => `/api/v1/reports/${ctx.key.companyId}/pdf`],
  ["GET", "/api/v1/reports/jobs/:jobId/status", () => `/api/v1/reports/jobs/${UNKNOWN_ID}/status`],
  ["GET", "/api/v1/reports/jobs/:jobId/download", () => `/api/v1/reports/jobs/${UNKNOWN_ID}/download`]
]

const authCases: ReadonlyArray<Case> = authenticatedRoutes.flatMap(([method, route, path]) =>
  badAuthorizations.map(([label, authorization]) => ({
    name: `${method} ${route}: ${label}`,
    method,
    path,
    auth: { authorization },
    // A body that would be valid, so only the credentials are wrong.
    ...(method === "POST" || method === "PATCH" ? { body: () => ({ json: { name: "x", read: true } }) } : {})
  }))
)

/** Unknown routes and methods, with broken escapes and long paths: JSON 404s. */
const routeCases: ReadonlyArray<Case> = [
  { name: "unknown route with a bad escape", method: "GET", path: () => "/api/v1/%FF", auth: "none" },
  { name: "unknown route with a lone-surrogate escape", method: "GET", path: () => "/%ED%A0%80", auth: "none" },
  { name: "unknown route with a broken escape", method: "GET", path: () => "/api/v1/%", auth: "none" },
  { name: "unknown route, 8,000 characters", method: "GET", path: () => `/${LONG}`, auth: "none" },
  { name: "PUT on a collection", method: "PUT", path: () => "/api/v1/watchlists", auth: "token" },
  { name: "DELETE on the companies collection", method: "DELETE", path: () => "/api/v1/companies", auth: "token" },
  { name: "POST on the health probe", method: "POST", path: () => "/health", auth: "none" },
  {
    name: "score without the /score suffix",
    method: "GET",
    path: (ctx) => `/api/v1/tenders/${ctx.tenderId}`,
    auth: "key"
  },
  { name: "mark-all-read with GET", method: "GET", path: () => "/api/v1/alerts/mark-all-read", auth: "token" },
  { name: "PATCH on a webhook", method: "PATCH", path: () => `/api/v1/webhooks/${UNKNOWN_ID}`, auth: "key" },
  {
    name: "GET on the report creation",
    method: "GET",
    path: (ctx) => `/api/v1/reports/${ctx.key.companyId}/pdf`,
    auth: "key"
  },
  {
    name: "POST on a token download",
    method: "POST",
    path: () => `/api/v1/reports/download/${"0".repeat(64)}`,
    auth: "none"
  },
  {
    name: "retry with GET",
    method: "GET",
    path: () => `/api/v1/settings/webhooks/deliveries/${UNKNOWN_ID}/retry`,
    auth: "token"
  }
]

/**
 * Input that is odd but within the documented rules (control characters and lone surrogates in free
 * text, extreme but valid dates and numbers, unknown extra fields, which are ignored): any answer
 * but a 5xx, and a 4xx only in the uniform body. Sent after the write checks, as some of these store.
 */
const oddButValidCases: ReadonlyArray<Case> = [
  ...withBodies("POST", "/api/v1/auth/login", () => "/api/v1/auth/login", "none", [
    ["email with control characters", { json: { email: CONTROL, password: "p" } }],
    ["email with a lone surrogate", { json: { email: SURROGATE, password: SURROGATE } }]
  ]),
  ...withBodies("POST", "/api/v1/watchlists", () => "/api/v1/watchlists", "token", [
    ["name with control characters", { json: { name: CONTROL } }],
    ["name and keywords with a lone surrogate", { json: { name: SURROGATE, keywords: [SURROGATE] } }],
    ["name with bidi overrides and emoji", { json: { name: "\u202edrum\u202c \u{1f6a7}" } }],
    ["unknown extra fields", { json: { name: "Extra", id: UNKNOWN_ID, active: false, tenantId: UNKNOWN_ID } }],
    [
      `an unknown field nested to the limit (${MAX_JSON_DEPTH} levels)`,
      { raw: `{"name": "Deep", "extra": ${deepArray(MAX_JSON_DEPTH - 1)}}` }
    ],
    [
      "brackets and escaped quotes inside strings (not nesting)",
      { json: { name: `"${"[{".repeat(90)}`, keywords: ["]]}}"] } }
    ],
    ["largest values", { json: { name: "Max", minValue: 0, maxValue: 9_999_999_999_999_998, minScore: 100 } }],
    ["companyId in uppercase", (ctx) => ({ json: { name: "Upper", companyId: ctx.account.companyId.toUpperCase() } })]
  ]),
  ...withBodies(
    "PATCH",
    "/api/v1/watchlists/:id",
    (ctx) => `/api/v1/watchlists/${ctx.watchlistId.toUpperCase()}`,
    "token",
    [["uppercase id, name with a lone surrogate", { json: { name: SURROGATE } }]]
  ),
  ...withBodies("PATCH", "/api/v1/companies/:id", (ctx) => `/api/v1/companies/${ctx.account.companyId}`, "token", [
    ["description with control characters and a lone surrogate", { json: { description: `${CONTROL}${SURROGATE}` } }],
    ["description of exactly 10,000 characters", { json: { description: "d".repeat(10_000) } }],
    ["empty object", { json: {} }]
  ]),
  ...withBodies("POST", "/api/v1/settings/api-keys", () => "/api/v1/settings/api-keys", "token", [
    ["name with a lone surrogate and control characters", { json: { name: `${SURROGATE}${CONTROL}` } }]
  ]),
  ...withBodies("POST", "/api/v1/companies", () => "/api/v1/companies", "token", [
    ["name with control characters, a spaced fiscal code", { json: { name: CONTROL, fiscalCode: " ro 123 456 " } }],
    ["fiscalCode null, unknown fields", { json: { name: "Odd", fiscalCode: null, id: UNKNOWN_ID, active: false } }]
  ]),
  ...[
    ...BAD_ESCAPES.filter((e) => e !== "%00").map((e) => `q=${e}`),
    "q=%25_%5C",
    "q=%C8%99%C8%9B%C4%83",
    "q=45",
    "q=a&limit=50",
    `q=${"ș".repeat(100)}`,
    "q=x&unknown=1"
  ].map((q): Case => ({ name: `GET /api/v1/cpv?${q}`, method: "GET", auth: "token", path: () => `/api/v1/cpv?${q}` })),
  ...["", "?status=closed&minScore=100&limit=100", "?unknown=1"].map(
    (q): Case => ({
      name: `GET /api/v1/app/companies/:companyId/tenders${q} (uppercase id)`,
      method: "GET",
      auth: "token",
      path: (ctx) => `/api/v1/app/companies/${ctx.account.companyId.toUpperCase()}/tenders${q}`
    })
  ),
  ...[
    "dateFrom=0001-01-01",
    "dateFrom=9999-12-31",
    "dateFrom=0001-01-01T00:00:00%2B14:00",
    "dateFrom=9999-12-31T23:59:59.999-14:00",
    "dateFrom=2026-01-01T00:00:00.123456789Z",
    "dateFrom=2026-01-01 10:00 0200",
    "page=1000000&limit=100",
    "unknown=1&also[]=2"
  ].map(
    (q): Case => ({ name: `GET /api/v1/alerts?${q}`, method: "GET", auth: "token", path: () => `/api/v1/alerts?${q}` })
  ),
  ...[
    "from=0001-01-01&to=0001-01-01",
    "from=9999-10-02&to=9999-12-31",
    "from=2026-01-01&to=2026-01-31&limit=1000&format=csv",
    "from=2026-01-01&to=2026-01-31&unknown=1"
  ].map(
    (q): Case => ({
      name: `GET /api/v1/export/tenders?${q}`,
      method: "GET",
      auth: "key",
      path: (ctx) => `/api/v1/export/tenders?companyId=${ctx.key.companyId}&${q}`
    })
  ),
  ...["minScore=100&limit=100", "limit=1e2", "unknown=1"].map(
    (q): Case => ({
      name: `GET /api/v1/tenders?${q}`,
      method: "GET",
      auth: "key",
      path: (ctx) => `/api/v1/tenders?companyId=${ctx.key.companyId.toUpperCase()}&${q}`
    })
  )
]

// ---------------------------------------------------------------------------------------------

describe("malformed input on every route: a 4xx in the uniform error body, never a 5xx", () => {
  let server: TestServer
  let ctx: Ctx

  beforeAll(async () => {
    // Generous key-API limits: every malformed request counts, and we want validation, not a 429.
    server = await startTestServer({
      rateLimits: { generalPerMinute: 1_000_000, exportPerHour: 1_000_000, reportsPerHour: 1_000_000 }
    })
    ctx = await makeCtx()
  })
  afterAll(() => server.close())

  /** A tenant with a key and scored tender, a user with a session, a watchlist and an unread alert. */
  const makeCtx = async (): Promise<Ctx> => {
    const key = await createAccount(server)
    const [tenderId] = await addScoredTenders(server, key, [{ score: 80, publishDate: "2026-01-15T08:00:00Z" }])
    const account = await seedAccount(server, "consultant")
    const { accessToken: token } = await signIn(server, account)
    const watchlist = await client(server, token).post("/api/v1/watchlists", {
      name: "Roads",
      minValue: 1,
      maxValue: 100
    })
    const alertId = await addAlert(server, {
      tenantId: account.tenantId,
      companyId: account.companyId,
      watchlistId: watchlist.body.data.id,
      tenderId: await addTender(server)
    })
    return { key, tenderId: tenderId!, account, token, watchlistId: watchlist.body.data.id, alertId }
  }

  const authorization = (auth: Auth, context: Ctx): Record<string, string> =>
    auth === "none"
      ? {}
      : auth === "key"
        ? { authorization: `Bearer ${context.key.key}` }
        : auth === "token"
          ? { authorization: `Bearer ${context.token}` }
          : { authorization: auth.authorization }

  /** Sends a case as is: raw bodies and content types go out untouched. */
  const send = async (c: Case, context: Ctx = ctx): Promise<TestResponse> => {
    const body = c.body?.(context)
    if (body === undefined || "json" in body) {
      return request(`${server.baseUrl}${c.path(context)}`, {
        method: c.method,
        headers: authorization(c.auth, context),
        ...(body === undefined ? {} : { body: JSON.stringify(body.json) })
      })
    }
    // Bytes, so fetch adds no content type of its own; `contentType: undefined` sends none.
    const contentType = "contentType" in body ? body.contentType : "application/json"
    const response = await fetch(`${server.baseUrl}${c.path(context)}`, {
      method: c.method,
      headers: {
        ...authorization(c.auth, context),
        ...(contentType === undefined ? {} : { "content-type": contentType })
      },
      // DOM typings (the browser app shares the type check) want an ArrayBuffer-backed view.
      body: (typeof body.raw === "string" ? Buffer.from(body.raw, "utf8") : body.raw) as Uint8Array<ArrayBuffer>
    })
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = JSON.parse(text)
    } catch {}
    return { status: response.status, headers: response.headers, body: parsed, text }
  }

  const expectUniform4xx = (response: TestResponse, label: string) => {
    const summary = `${label} → ${response.status} ${response.text.slice(0, 300)}`
    expect(response.status, summary).toBeGreaterThanOrEqual(400)
    expect(response.status, summary).toBeLessThan(500)
    expect(response.headers.get("content-type"), summary).toMatch(/^application\/json/)
    expect(response.body, summary).toMatchObject({
      statusCode: response.status,
      code: expect.any(String),
      message: expect.any(String)
    })
    if (response.body.details !== undefined) expect(Array.isArray(response.body.details), summary).toBe(true)
  }

  describe("JSON bodies and path ids", () => {
    it.each(bodyCases.map((c) => [c.name, c] as const))("%s", async (name, c) => {
      expectUniform4xx(await send(c), name)
    })
  })

  describe("query parameters", () => {
    it.each(queryTables.map((t) => [t.name, t] as const))("%s", async (_name, table) => {
      const failures: Array<string> = []
      for (const [label, q] of table.queries(ctx)) {
        const response = await send({
          name: label,
          method: "GET",
          auth: table.auth,
          path: (c) => `${table.route(c)}${q === "" ? "" : `?${q}`}`
        })
        try {
          expectUniform4xx(response, `${table.name} ${label}`)
        } catch (error) {
          failures.push((error as Error).message.split("\n")[0]!)
        }
      }
      expect(failures).toEqual([])
    })
  })

  describe("malformed credentials", () => {
    it.each(authCases.map((c) => [c.name, c] as const))("%s", async (name, c) => {
      const response = await send(c)
      expectUniform4xx(response, name)
      expect(response.status, name).toBe(401)
    })
  })

  describe("unknown routes and methods", () => {
    it.each(routeCases.map((c) => [c.name, c] as const))("%s", async (name, c) => {
      expectUniform4xx(await send(c), name)
    })
  })

  describe("a refused request writes nothing", { timeout: 300_000 }, () => {
    /**
     * A context of the test's own, on which the test itself sends every malformed body and query
     * (each a 4xx), so what it then finds was left by refused requests only, whatever ran before.
     */
    const refusedOnFreshContext = async (): Promise<Ctx> => {
      const own = await makeCtx()
      // Its rescore has run: a refused request that queued one would show (a queued one absorbs more).
      await runRescores(server, own.account.companyId)
      const cases: Array<Case> = [
        ...bodyCases,
        ...queryTables.flatMap((table) =>
          table.queries(own).map(([label, q]): Case => {
            const path = (x: Ctx) => `${table.route(x)}${q === "" ? "" : `?${q}`}`
            return { name: label, method: "GET", auth: table.auth, path }
          })
        )
      ]
      // Eight at a time: hundreds of requests, sequentially too slow on a busy 2-core machine.
      for (let i = 0; i < cases.length; i += 8) {
        const batch = cases.slice(i, i + 8)
        const responses = await Promise.all(batch.map((c) => send(c, own)))
        responses.forEach((response, j) => {
          expectUniform4xx(response, batch[j]!.name)
        })
      }
      return own
    }

    it("watchlists: no watchlist created or changed, no rescore queued", async () => {
      const ctx = await refusedOnFreshContext()
      const rows = await query<{ name: string; min_value: number; max_value: number; active: boolean }>(
        server,
        "SELECT name, min_value::float8 AS min_value, max_value::float8 AS max_value, active FROM watchlists WHERE tenant_id = $1",
        [ctx.account.tenantId]
      )
      expect(rows).toEqual([{ name: "Roads", min_value: 1, max_value: 100, active: true }])
      // The company's creation queued one (the fixture's watchlist joined it), run since; nothing after.
      expect(await rescoreJobs(server, ctx.account.companyId)).toBe(1)
    })

    it("reports: no job queued, no credits held", async () => {
      const ctx = await refusedOnFreshContext()
      const [state] = await query<{ jobs: number; holds: number }>(
        server,
        `SELECT (SELECT count(*)::int FROM report_jobs WHERE tenant_id = $1) AS jobs,
                (SELECT count(*)::int FROM credit_ledger WHERE tenant_id = $1 AND kind = 'hold') AS holds`,
        [ctx.key.tenantId]
      )
      expect(state).toEqual({ jobs: 0, holds: 0 })
    })

    it("companies: name and description unchanged", async () => {
      const ctx = await refusedOnFreshContext()
      const [company] = await query<{ name: string; description: string }>(
        server,
        "SELECT name, description FROM companies WHERE id = $1",
        [ctx.account.companyId]
      )
      expect(company!.description).toBe("Construcții drumuri")
      expect(company!.name).toMatch(/^Company [0-9a-f]{10}$/)
      const rows = await query<{ id: string; fiscal_code: string | null; active: boolean }>(
        server,
        "SELECT id, fiscal_code, active FROM companies WHERE tenant_id = $1",
        [ctx.account.tenantId]
      )
      expect(rows).toEqual([{ id: ctx.account.companyId, fiscal_code: null, active: true }])
    })

    it("alerts: still unread; API keys: none created; sessions: only the fixture's", async () => {
      const ctx = await refusedOnFreshContext()
      const [state] = await query<{ read: boolean; keys: number; sessions: number }>(
        server,
        `SELECT (SELECT read FROM alerts WHERE id = $1) AS read,
                (SELECT count(*)::int FROM api_keys WHERE tenant_id = $2) AS keys,
                (SELECT count(*)::int FROM auth_sessions s JOIN users u ON u.id = s.user_id
                  WHERE u.tenant_id = $2 AND s.revoked_at IS NULL) AS sessions`,
        [ctx.alertId, ctx.account.tenantId]
      )
      expect(state).toEqual({ read: false, keys: 0, sessions: 1 })
    })

    it("webhooks: none registered by the refused requests", async () => {
      const ctx = await refusedOnFreshContext()
      const [row] = await query<{ n: number }>(
        server,
        "SELECT count(*)::int AS n FROM webhooks WHERE tenant_id = ANY($1::uuid[])",
        [[ctx.key.tenantId, ctx.account.tenantId]]
      )
      expect(row!.n).toBe(0)
    })

    it("reports: no job created by the refused requests", async () => {
      const [row] = await query<{ n: number }>(
        server,
        "SELECT count(*)::int AS n FROM report_jobs WHERE tenant_id = $1",
        [ctx.account.tenantId]
      )
      expect(row!.n).toBe(0)
    })

    it("key API: refused requests cost no credits", async () => {
      const ctx = await refusedOnFreshContext()
      expect((await ledgerState(server, ctx.key.tenantId)).charged).toBe(0)
    })
  })

  describe("odd but valid input: anything but a 5xx", () => {
    it.each(oddButValidCases.map((c) => [c.name, c] as const))("%s", async (name, c) => {
      const response = await send(c)
      if (response.status >= 400) expectUniform4xx(response, name)
      else expect(response.status, `${name} → ${response.status} ${response.text.slice(0, 300)}`).toBeLessThan(300)
    })
  })
})
