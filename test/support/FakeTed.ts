import { createHash, randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A fake TED Search API v3 (`POST /v3/notices/search`) and notice XML host (`GET /en/notice/{n}/xml`)
 * for the poller's tests. It honours the CONFIRMED facts of /work/shared/sources/README.md §1; where
 * those are silent it follows one live-verified consumer's notes or is merely plausible, and says so.
 * Errors are JSON `{ message, error: { type, ... } }`, the shape a consumer recorded from TED
 * (SEARCH_EXCEEDS_MAX_LIMIT, SEARCH_WINDOW_TOO_WIDE and QUERY_SYNTAX_ERROR are TED's own type names;
 * the other types are ours).
 */

export interface FakeTedNotice {
  readonly publicationNumber: string
  /** YYYY-MM-DD; served with Luxembourg's CET/CEST offset, like the README's examples ("2026-11-24+01:00"). */
  readonly publicationDate: string
  readonly buyerCountry?: string
  readonly title?: { readonly [lang: string]: string }
  readonly xml: string
}
export interface FakeTedRequest {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: unknown
}
export interface FakeTed {
  readonly url: string
  publish(notice: FakeTedNotice): void
  failXml(publicationNumber: string, times: number, status?: number): void
  rateLimitSearch(times: number, retryAfterSeconds?: number): void
  expireIterationTokens(): void
  readonly requests: ReadonlyArray<FakeTedRequest>
  close(): Promise<void>
}

/** Field names TED knows (README's verified list); one outside it fails the request, as on TED. */
const KNOWN_FIELDS = new Set(
  `publication-number publication-date notice-type notice-identifier notice-version procedure-identifier
   notice-title title-proc description-proc buyer-name buyer-country classification-cpv main-classification-proc
   estimated-value-proc estimated-value-cur-proc estimated-value-lot deadline-receipt-tender-date-lot
   deadline-receipt-tender-time-lot deadline-receipt-request change-notice-version-identifier winner-name
   total-value links`.split(/\s+/)
)
/** Body keys TED accepts; a consumer saw an unknown key refused with 400 (so a typo cannot pass silently). */
const BODY_KEYS = new Set([
  "query",
  "fields",
  "limit",
  "page",
  "scope",
  "paginationMode",
  "iterationNextToken",
  "checkQuerySyntax",
  "onlyLatestVersions"
])
const MAX_LIMIT = 250
const PAGE_WINDOW = 15_000

/** "+01:00" / "+02:00": a zone's UTC offset at noon of a date (TED dates carry Luxembourg's). */
const offsetOn = (date: string, timeZone: string): string => {
  const name = new Intl.DateTimeFormat("en", { timeZone, timeZoneName: "longOffset" })
    .formatToParts(new Date(`${date}T12:00:00Z`))
    .find((part) => part.type === "timeZoneName")?.value
  return name === undefined || name === "GMT" ? "Z" : name.slice(3)
}

class BadRequest {
  constructor(
    readonly type: string,
    readonly message: string
  ) {}
}

type Filter = (notice: FakeTedNotice) => boolean
/** The expert query, read strictly but only as far as the poller needs: clauses joined by AND, optional sort. */
const parseQuery = (query: unknown): { filters: Array<Filter>; descending: boolean } => {
  if (typeof query !== "string" || query.trim() === "") throw new BadRequest("QUERY_SYNTAX_ERROR", "query is required")
  const sort = /^(.*?)\s+SORT BY\s+publication-date(?:\s+(ASC|DESC))?$/.exec(query.trim())
  const where = sort?.[1] ?? query.trim()
  const filters = where.split(/\s+AND\s+/).map((clause): Filter => {
    const country = /^buyer-country\s*(?:=\s*([A-Z]{3})|\s+IN\s+\(\s*([A-Z]{3}(?:[\s,]+[A-Z]{3})*)\s*\))$/.exec(clause)
    if (country !== null) {
      const wanted = (country[1] ?? country[2]!).split(/[\s,]+/)
      return (notice) => wanted.includes(notice.buyerCountry ?? "ROU")
    }
    const date = /^publication-date\s*(>=|<=|=|>|<)\s*(\d{4})(\d{2})(\d{2})$/.exec(clause)
    const day = date === null ? "" : `${date[2]}-${date[3]}-${date[4]}`
    if (date !== null && new Date(Date.parse(`${day}T00:00:00Z`) || 0).toISOString().startsWith(day)) {
      const compare = { ">=": (c: number) => c >= 0, "<=": (c: number) => c <= 0, "=": (c: number) => c === 0 }
      const test = { ...compare, ">": (c: number) => c > 0, "<": (c: number) => c < 0 }[date[1]!]!
      return (notice) => test(notice.publicationDate.localeCompare(day))
    }
    // TED names a date not written YYYYMMDD (e.g. ISO) QUERY_INVALID_FIELD_FORMAT.
    if (clause.startsWith("publication-date")) {
      throw new BadRequest("QUERY_INVALID_FIELD_FORMAT", `publication-date takes YYYYMMDD: "${clause}"`)
    }
    throw new BadRequest("QUERY_SYNTAX_ERROR", `the fake TED cannot read the clause "${clause}"`)
  })
  return { filters, descending: sort?.[2] === "DESC" }
}

/** Publication date, then publication number ("00123456-2026": year, then number). */
const byPublication = (a: FakeTedNotice, b: FakeTedNotice): number => {
  const key = (n: FakeTedNotice) => {
    const [number = "", year = ""] = n.publicationNumber.split("-")
    return [n.publicationDate, year.padStart(4, "0"), number.padStart(10, "0")].join(" ")
  }
  return key(a).localeCompare(key(b))
}

/** One notice as TED returns it: the requested fields the fake can fill, and always `links`. */
const noticeJson = (notice: FakeTedNotice, fields: ReadonlyArray<string>, base: string) => {
  const pn = notice.publicationNumber
  const firstMatch = (re: RegExp) => re.exec(notice.xml)?.[1]
  const values: Record<string, unknown> = {
    "publication-number": pn,
    "publication-date": `${notice.publicationDate}${offsetOn(notice.publicationDate, "Europe/Luxembourg")}`,
    "notice-title": notice.title,
    "buyer-country": [notice.buyerCountry ?? "ROU"],
    "notice-type": firstMatch(/<cbc:NoticeTypeCode[^>]*>([^<]+)</),
    "notice-identifier": firstMatch(/<cbc:ID schemeName="notice-id">([^<]+)</),
    "classification-cpv": [...new Set([...notice.xml.matchAll(/listName="cpv">(\d{8})</g)].map((m) => m[1]))]
  }
  // Fields TED knows but the fake cannot fill are left out, as TED leaves out a field a notice lacks.
  const json = Object.fromEntries(fields.filter((f) => values[f] !== undefined).map((f) => [f, values[f]]))
  const detail = `${base}/en/notice/-/detail/${pn}`
  return {
    ...json,
    links: {
      xml: { MUL: `${base}/en/notice/${pn}/xml` },
      html: { ENG: detail, RON: `${base}/ro/notice/-/detail/${pn}` },
      pdf: { ENG: `${base}/en/notice/${pn}/pdf`, RON: `${base}/ro/notice/${pn}/pdf` }
    }
  }
}

/** The fake on 127.0.0.1 (or `host`) at a free port; nothing is published until `publish`. */
export const startFakeTed = async (options: { readonly host?: string } = {}): Promise<FakeTed> => {
  const host = options.host ?? "127.0.0.1"
  const notices: Array<FakeTedNotice> = []
  const requests: Array<FakeTedRequest> = []
  const xmlFailures = new Map<string, { times: number; status: number }>()
  let rateLimit = { times: 0, retryAfter: undefined as number | undefined }
  // An iteration is a snapshot of the result set at its first call: later publications never enter it.
  let tokens = new Map<string, { readonly snapshot: ReadonlyArray<FakeTedNotice>; readonly offset: number }>()
  let base = ""

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body))

  const search = (body: unknown) => {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new BadRequest("REQUEST_BODY_INVALID", "the body must be a JSON object")
    }
    const request = body as Record<string, unknown>
    const unknownKey = Object.keys(request).find((key) => !BODY_KEYS.has(key))
    if (unknownKey !== undefined) throw new BadRequest("REQUEST_BODY_INVALID", `Unrecognized field "${unknownKey}"`)
    const fields = request.fields
    if (!Array.isArray(fields) || fields.length === 0 || !fields.every((f) => typeof f === "string")) {
      throw new BadRequest("SEARCH_FIELDS_REQUIRED", "fields must be a non-empty list of field names")
    }
    const unknownFields = fields.filter((f) => !KNOWN_FIELDS.has(f))
    if (unknownFields.length > 0) throw new BadRequest("SEARCH_UNKNOWN_FIELDS", `unknown fields: ${unknownFields}`)
    // Plausible: TED's default page size is not documented; 10 here.
    const limit = request.limit ?? 10
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 0) {
      throw new BadRequest("REQUEST_BODY_INVALID", "limit must be a non-negative integer")
    }
    if (limit > MAX_LIMIT) {
      throw new BadRequest("SEARCH_EXCEEDS_MAX_LIMIT", `Value (${limit}) of parameter 'limit' exceeds ${MAX_LIMIT}`)
    }
    const page = request.page ?? 1
    if (typeof page !== "number" || !Number.isInteger(page) || page < 1) {
      throw new BadRequest("REQUEST_BODY_INVALID", "page must be greater than or equal to 1")
    }
    const mode = request.paginationMode ?? "PAGE_NUMBER"
    if (mode !== "PAGE_NUMBER" && mode !== "ITERATION") throw new BadRequest("REQUEST_BODY_INVALID", "paginationMode")
    // Every fake notice is a latest version, so the scope only has to be one TED knows.
    if (request.scope !== undefined && !["ACTIVE", "LATEST", "ALL"].includes(request.scope as string)) {
      throw new BadRequest("REQUEST_BODY_INVALID", `unknown scope ${String(request.scope)}`)
    }
    const { filters, descending } = parseQuery(request.query)
    const answer = (slice: ReadonlyArray<FakeTedNotice>, total: number | null, next: string | null) => ({
      notices: slice.map((n) => noticeJson(n, fields, base)),
      totalNoticeCount: total,
      iterationNextToken: next,
      timedOut: false
    })
    // Validate-only, as a consumer recorded it: 200, no notices, a null count.
    if (request.checkQuerySyntax === true) return answer([], null, null)
    const run = () => {
      const found = notices.filter((n) => filters.every((f) => f(n))).sort(byPublication)
      return descending ? found.reverse() : found
    }
    if (mode === "PAGE_NUMBER") {
      if (page * limit > PAGE_WINDOW) {
        throw new BadRequest("SEARCH_WINDOW_TOO_WIDE", `page x limit exceeds ${PAGE_WINDOW}; use ITERATION`)
      }
      const found = run()
      return answer(found.slice((page - 1) * limit, page * limit), found.length, null)
    }
    const token = request.iterationNextToken
    const from = token === undefined || token === null ? { snapshot: run(), offset: 0 } : tokens.get(String(token))
    if (from === undefined) {
      throw new BadRequest("SEARCH_ITERATION_TOKEN_INVALID", "iterationNextToken is unknown or has expired")
    }
    const end = from.offset + limit
    // Plausible: the token is null once the last notice was served (TED may also end on an empty page).
    let next: string | null = null
    if (end < from.snapshot.length) {
      next = randomBytes(18).toString("base64url")
      tokens.set(next, { snapshot: from.snapshot, offset: end })
    }
    return answer(from.snapshot.slice(from.offset, end), from.snapshot.length, next)
  }

  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8")
      let body: unknown = raw === "" ? undefined : raw
      let parseError: string | undefined
      try {
        if (raw !== "") body = JSON.parse(raw)
      } catch (error) {
        parseError = (error as Error).message
      }
      const path = req.url ?? ""
      requests.push({ method: req.method ?? "", path, headers: { ...req.headers }, body })
      const pathname = path.split("?")[0]!
      if (pathname === "/v3/notices/search") {
        if (req.method !== "POST")
          return send(res, 405, { message: "POST only", error: { type: "METHOD_NOT_ALLOWED" } })
        if (rateLimit.times > 0) {
          rateLimit.times -= 1
          // Undocumented at TED (one consumer saw an nginx HTML 429 without Retry-After); JSON here.
          const headers: Record<string, string> =
            rateLimit.retryAfter === undefined ? {} : { "retry-after": String(rateLimit.retryAfter) }
          return send(res, 429, { message: "Too Many Requests", error: { type: "TOO_MANY_REQUESTS" } }, headers)
        }
        try {
          if (parseError !== undefined) throw new BadRequest("JSON_PARSE_ERROR", `JSON parse error: ${parseError}`)
          return send(res, 200, search(body))
        } catch (error) {
          if (error instanceof BadRequest)
            return send(res, 400, { message: error.message, error: { type: error.type } })
          return send(res, 500, { message: String(error), error: { type: "FAKE_TED_BUG" } })
        }
      }
      const xml = /^\/en\/notice\/([^/]+)\/xml$/.exec(pathname)
      if (xml !== null && req.method === "GET") {
        const pn = decodeURIComponent(xml[1]!)
        const failure = xmlFailures.get(pn)
        if (failure !== undefined && failure.times > 0) {
          failure.times -= 1
          return res.writeHead(failure.status, { "content-type": "text/html" }).end("<html>error</html>")
        }
        const notice = notices.find((n) => n.publicationNumber === pn)
        if (notice === undefined) return res.writeHead(404, { "content-type": "text/html" }).end("<html>404</html>")
        return res.writeHead(200, { "content-type": "application/xml" }).end(notice.xml)
      }
      send(res, 404, { message: `no route ${req.method} ${pathname}`, error: { type: "NOT_FOUND" } })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  const { port } = server.address() as AddressInfo
  base = `http://${host.includes(":") ? `[${host}]` : host}:${port}`
  return {
    url: base,
    publish: (notice) => {
      notices.push(notice)
    },
    failXml: (publicationNumber, times, status = 500) => {
      xmlFailures.set(publicationNumber, { times, status })
    },
    rateLimitSearch: (times, retryAfterSeconds) => {
      rateLimit = { times, retryAfter: retryAfterSeconds }
    },
    expireIterationTokens: () => {
      tokens = new Map()
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

const xmlText = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
/** Replaces `from` in the sample, failing loudly when the sample no longer has it `count` times. */
const swap = (xml: string, from: string | RegExp, to: string, count = 1): string => {
  const pattern = new RegExp(typeof from === "string" ? from.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : from.source, "g")
  const found = xml.match(pattern)?.length ?? 0
  if (found !== count) throw new Error(`eformsNoticeXml: ${pattern} found ${found} times, expected ${count}`)
  return xml.replace(pattern, () => to)
}
/** A UUID derived from a text, so a notice and its changes share one procedure (ContractFolderID). */
const uuidOf = (text: string) =>
  createHash("sha1")
    .update(text)
    .digest("hex")
    .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12}).*$/, "$1-$2-$3-$4-$5")

/** The OJ S issue of a day: one issue per working day (Mon–Fri) of the year. */
const ojsIssue = (date: string) => {
  let issue = 0
  for (let day = Date.parse(`${date.slice(0, 4)}-01-01`); day <= Date.parse(date); day += 86_400_000) {
    if (![0, 6].includes(new Date(day).getUTCDay())) issue += 1
  }
  return issue
}

const SAMPLE = fs.readFileSync(new URL("../fixtures/eforms/cn_24_minimal.xml", import.meta.url), "utf8")

/** A real eForms notice (built from the samples by replacing ids/texts), for publishing. */
export const eformsNoticeXml = (fields: {
  readonly noticeId: string
  readonly publicationNumber: string
  readonly publicationDate: string
  readonly title: string
  readonly description?: string
  readonly cpv: string
  readonly buyerName?: string
  readonly buyerFiscalCode?: string
  readonly buyerNuts?: string
  readonly estimatedValue?: number
  readonly deadline?: string
  /** A change notice of `changedNoticeId`, with its reason (BT-140: `update-add`, `cancel`, …) when given. */
  readonly changes?: { readonly changedNoticeId: string; readonly reason?: string }
}): string => {
  const nuts = fields.buyerNuts ?? "RO321"
  const published = `${fields.publicationDate}${offsetOn(fields.publicationDate, "Europe/Luxembourg")}`
  const deadline =
    fields.deadline ?? new Date(Date.parse(fields.publicationDate) + 30 * 86_400_000).toISOString().slice(0, 10)
  const ro = offsetOn(deadline, "Europe/Bucharest")
  const company = (id: string, name: string, code: string, fiscal?: string) =>
    `<efac:Organization><efac:Company><cac:PartyIdentification><cbc:ID schemeName="organization">${id}</cbc:ID></cac:PartyIdentification><cac:PartyName><cbc:Name languageID="RON">${xmlText(name)}</cbc:Name></cac:PartyName><cac:PostalAddress><cbc:CountrySubentityCode listName="nuts">${code}</cbc:CountrySubentityCode><cac:Country><cbc:IdentificationCode listName="country">ROU</cbc:IdentificationCode></cac:Country></cac:PostalAddress>${fiscal === undefined ? "" : `<cac:PartyLegalEntity><cbc:CompanyID>${xmlText(fiscal)}</cbc:CompanyID></cac:PartyLegalEntity>`}</efac:Company></efac:Organization>`
  // The buyer (ORG-0001) and the review body (ORG-0003) keep the sample's ids and element order.
  const organizations = `<efac:Organizations>${company("ORG-0001", fields.buyerName ?? "Primăria Municipiului București", nuts, fields.buyerFiscalCode ?? "4267117")}${company("ORG-0003", "Consiliul Național de Soluționare a Contestațiilor", "RO321")}</efac:Organizations>`
  // efac:Publication is what TED adds on publishing (the samples are as sent, before publication).
  const publication = `<efac:Publication><efbc:NoticePublicationID schemeName="ojs-notice-id">${fields.publicationNumber}</efbc:NoticePublicationID><efbc:GazetteID schemeName="ojs-id">${ojsIssue(fields.publicationDate)}/${fields.publicationDate.slice(0, 4)}</efbc:GazetteID><efbc:PublicationDate>${published}</efbc:PublicationDate></efac:Publication>`
  const changes =
    fields.changes === undefined
      ? ""
      : `<efac:Changes><efbc:ChangedNoticeIdentifier>${fields.changes.changedNoticeId}-01</efbc:ChangedNoticeIdentifier><efac:Change><efbc:ChangeDescription languageID="RON">Modificare</efbc:ChangeDescription></efac:Change>${fields.changes.reason === undefined ? "" : `<efac:ChangeReason><cbc:ReasonCode listName="change-corrig-justification">${fields.changes.reason}</cbc:ReasonCode></efac:ChangeReason>`}</efac:Changes>`
  const value =
    fields.estimatedValue === undefined
      ? ""
      : `<cac:RequestedTenderTotal><cbc:EstimatedOverallContractAmount currencyID="RON">${fields.estimatedValue}</cbc:EstimatedOverallContractAmount></cac:RequestedTenderTotal>`
  const contractNature = '<cbc:ProcurementTypeCode listName="contract-nature">services</cbc:ProcurementTypeCode>'
  let xml = SAMPLE
  xml = swap(xml, /<efac:Organizations>[\s\S]*<\/efac:Organizations>/, organizations + publication)
  xml = swap(xml, "<efac:NoticeSubType>", `${changes}<efac:NoticeSubType>`)
  xml = swap(xml, "f42be27e-09cf-4f0e-a745-63ec689631e6", fields.noticeId)
  xml = swap(xml, "4805c409-5939-4be9-8abd-837f7a5fee23", uuidOf(fields.changes?.changedNoticeId ?? fields.noticeId))
  xml = swap(xml, "<cbc:IssueDate>2019-11-21+01:00", `<cbc:IssueDate>${published}`)
  xml = swap(xml, "<cbc:NoticeLanguageCode>ENG", "<cbc:NoticeLanguageCode>RON")
  xml = swap(xml, /<cbc:Name languageID="ENG">Provision of IT[^<]*<\/cbc:Name>/, "", 2)
  xml = swap(xml, /<cbc:Description languageID="ENG">Provision of IT[^<]*<\/cbc:Description>/, "", 2)
  const texts = `<cbc:Name languageID="RON">${xmlText(fields.title)}</cbc:Name><cbc:Description languageID="RON">${xmlText(fields.description ?? fields.title)}</cbc:Description>`
  xml = swap(xml, contractNature, texts + contractNature, 2)
  // The project-level value sits after the first (procedure) ProcurementTypeCode, as in cn_24_multilingual.
  xml = xml.replace(contractNature, contractNature + value)
  xml = swap(xml, ">72230000<", `>${fields.cpv}<`, 2)
  xml = swap(xml, ">FRD22<", `>${nuts}<`, 2)
  xml = swap(xml, 'listName="country">FRA<', 'listName="country">ROU<', 2)
  xml = swap(xml, "<cbc:ID>ENG</cbc:ID>", "<cbc:ID>RON</cbc:ID>")
  xml = swap(xml, "<cbc:EndDate>2020-02-04+02:00", `<cbc:EndDate>${deadline}${ro}`)
  xml = swap(xml, "<cbc:EndTime>10:00:00+02:00", `<cbc:EndTime>10:00:00${ro}`)
  xml = swap(xml, "<cbc:OccurrenceDate>2020-02-04+01:00", `<cbc:OccurrenceDate>${deadline}${ro}`)
  return swap(xml, "<cbc:OccurrenceTime>10:00:00+01:00", `<cbc:OccurrenceTime>10:30:00${ro}`)
}
