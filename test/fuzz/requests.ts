import fc from "fast-check"
import type { JsonSchema, Route } from "./routes.js"
import { NASTY_STRINGS, RawJson, type SchemaArbitraries, toJsonText } from "./schemaArbitraries.js"

/**
 * Whole HTTP requests for one route, in three kinds: `valid` (path, query and body follow the
 * schema), `near-valid` (one part wrong: a path id, a query parameter, the body, its content type or
 * the credentials) and `arbitrary` (anything in every part).
 */

export type Credential = "route" | "none" | "swapped" | { readonly authorization: string }

export interface FuzzRequest {
  readonly kind: "valid" | "near-valid" | "arbitrary"
  /** What is wrong in a near-valid request. */
  readonly wrong: string
  readonly method: string
  /** Path and query, as sent (already percent-encoded, or deliberately not). */
  readonly path: string
  readonly credential: Credential
  readonly contentType: string | undefined
  readonly body: string | Uint8Array | undefined
}

/** Escapes that are not UTF-8 or not escapes at all, sent raw. */
const BAD_ESCAPES = ["%", "%zz", "%FF", "%ED%A0%80", "%00", "%C3%28", "%2F", "..", "."] as const

/** Each encoded part stays short enough that the request head fits node's 16 KiB limit (else node, not us, answers 431). */
const MAX_PART = 1_500

/** Percent-encodes UTF-8 (lone surrogates become U+FFFD, as a browser would send them). */
const pct = (text: string) => {
  const encoded = Array.from(Buffer.from(text, "utf8"), (byte) =>
    /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte))
      ? String.fromCharCode(byte)
      : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
  ).join("")
  return encoded.length <= MAX_PART ? encoded : encoded.slice(0, MAX_PART).replace(/%[0-9A-F]?$/, "")
}

/** A generated value as parameter text (a query value or path segment). */
const asText = (value: unknown): string =>
  typeof value === "string" ? value : value instanceof RawJson ? value.text : toJsonText(value)

const CONTENT_TYPES = [
  undefined,
  "",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "multipart/form-data; boundary=x",
  "application/json; charset=latin1",
  "application/json; charset=nope",
  "application/xml",
  "application/vnd.api+json",
  "application/json, text/plain",
  "*/*"
] as const

const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`

export const requestArbitraries = (arbs: SchemaArbitraries) => {
  const segment = {
    valid: (schema: JsonSchema) => arbs.valid(schema).map((v) => pct(asText(v))),
    wrong: (schema: JsonSchema) =>
      fc.oneof(
        arbs.wrong(schema).map((v) => pct(asText(v))),
        fc.constantFrom(...BAD_ESCAPES).map((e) => `a${e}`),
        fc.constantFrom(...BAD_ESCAPES),
        arbs.valid(schema).map((v) => pct(asText(v).toUpperCase())),
        arbs.valid(schema).map((v) => `${pct(asText(v))}${pct("\u0000")}`)
      ),
    arbitrary: fc.oneof(fc.string({ unit: "binary", maxLength: 80 }).map(pct), fc.constantFrom(...BAD_ESCAPES))
  }

  /** Malformed body text: truncated, trailing garbage, other values, invalid UTF-8, deep nesting. */
  const malformedBody = (validText: fc.Arbitrary<string>): fc.Arbitrary<string | Uint8Array> =>
    fc.oneof(
      validText.chain((text) => fc.nat({ max: Math.max(text.length - 1, 0) }).map((n) => text.slice(0, n))),
      validText.map((text) => `${text},`),
      validText.map((text) => `${text}${text}`),
      validText.map((text) => `\ufeff${text}`),
      validText.map((text) => text.replace(/"/g, "'")),
      fc.constantFrom("", " ", "null", "[]", "0", '"x"', "true", "{", "}", "{]", "NaN", "undefined"),
      fc.constantFrom(deep(100), deep(5_000), deep(100_000), `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`),
      fc.uint8Array({ minLength: 1, maxLength: 64 }),
      fc.constant(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0xc3, 0x28, 0x7d])),
      fc.string({ unit: "binary", maxLength: 200 })
    )

  return (route: Route, credentialed: boolean) => {
    const pathParams = route.params.filter((p) => p.in === "path")
    const queryParams = route.params.filter((p) => p.in === "query")
    const bodySchema = route.body?.schema

    const buildPath = (segments: Record<string, string>, query: ReadonlyArray<string>) => {
      const path = route.template.replace(/\{([^}]+)\}/g, (_, name: string) => segments[name] ?? "x")
      return query.length === 0 ? path : `${path}?${query.join("&")}`
    }

    const validSegments = fc.record(Object.fromEntries(pathParams.map((p) => [p.name, segment.valid(p.schema)])))

    /** Required parameters always, optional ones sometimes. */
    const validQuery = fc
      .tuple(
        ...queryParams.map((p) =>
          (p.required ? segment.valid(p.schema) : fc.option(segment.valid(p.schema), { nil: undefined })).map(
            (v) => [p.name, v] as const
          )
        )
      )
      .map((pairs) => pairs.filter(([, v]) => v !== undefined).map(([k, v]) => `${pct(k)}=${v}`))

    const validBody = bodySchema === undefined ? fc.constant(undefined) : arbs.valid(bodySchema).map(toJsonText)
    const base = fc.record({ segments: validSegments, query: validQuery, body: validBody })

    const request = (
      kind: FuzzRequest["kind"],
      wrong: string,
      parts: {
        segments: Record<string, string>
        query: ReadonlyArray<string>
        body: string | Uint8Array | undefined
        contentType?: string | undefined
        credential?: Credential
      }
    ): FuzzRequest => ({
      kind,
      wrong,
      method: route.method,
      path: buildPath(parts.segments, parts.query),
      credential: parts.credential ?? (credentialed ? "route" : "none"),
      contentType:
        "contentType" in parts ? parts.contentType : parts.body === undefined ? undefined : route.body?.contentType,
      body: parts.body
    })

    const valid = base.map((parts) => request("valid", "", parts))

    const nearValid: Array<fc.Arbitrary<FuzzRequest>> = []
    if (pathParams.length > 0) {
      nearValid.push(
        fc.tuple(base, fc.constantFrom(...pathParams)).chain(([parts, param]) =>
          segment.wrong(param.schema).map((v) =>
            request("near-valid", `path ${param.name}`, {
              ...parts,
              segments: { ...parts.segments, [param.name]: v }
            })
          )
        )
      )
    }
    if (queryParams.length > 0) {
      nearValid.push(
        fc.tuple(base, fc.constantFrom(...queryParams)).chain(([parts, param]) => {
          const others = parts.query.filter((q) => !q.startsWith(`${pct(param.name)}=`))
          const name = pct(param.name)
          return fc
            .oneof(
              segment.wrong(param.schema).map((v) => [...others, `${name}=${v}`]),
              fc.constant(others),
              segment.valid(param.schema).map((v) => [...others, `${name}=${v}`, `${name}=${v}`]),
              segment.wrong(param.schema).map((v) => [...others, `${name}=${v}`, `${name}=${v}`]),
              segment.valid(param.schema).map((v) => [...others, `${name}[]=${v}`]),
              segment.valid(param.schema).map((v) => [...others, `${name}[a]=${v}`]),
              fc.constant([...others, name]),
              fc.constant([...others, `${name}=`])
            )
            .map((query) => request("near-valid", `query ${param.name}`, { ...parts, query }))
        })
      )
    }
    if (bodySchema !== undefined) {
      nearValid.push(
        fc
          .tuple(base, arbs.nearValid(bodySchema))
          .map(([parts, body]) => request("near-valid", "body", { ...parts, body: toJsonText(body) })),
        fc
          .tuple(base, malformedBody(arbs.valid(bodySchema).map(toJsonText)))
          .map(([parts, body]) => request("near-valid", "malformed body", { ...parts, body })),
        fc
          .tuple(base, fc.constantFrom(...CONTENT_TYPES))
          .map(([parts, contentType]) => request("near-valid", "content type", { ...parts, contentType }))
      )
    } else {
      nearValid.push(
        fc
          .tuple(base, fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(...CONTENT_TYPES))
          .map(([parts, body, contentType]) =>
            request("near-valid", "unexpected body", { ...parts, body: toJsonText(body), contentType })
          )
      )
    }
    nearValid.push(
      fc
        .tuple(base, fc.constantFrom(...NASTY_STRINGS).map(pct), fc.string({ maxLength: 20 }).map(pct))
        .map(([parts, k, v]) =>
          request("near-valid", "unknown parameter", { ...parts, query: [...parts.query, `${k}=${v}`] })
        )
    )
    if (credentialed) {
      nearValid.push(
        fc
          .tuple(
            base,
            fc.oneof(
              fc.constantFrom<Credential>("none", "swapped"),
              fc
                .constantFrom("Bearer ", "Basic eDp5", "Bearer svc_", "Bearer at1..", "bearer x", "Bearer \u00e9\u00ff")
                .map((authorization): Credential => ({ authorization }))
            )
          )
          .map(([parts, credential]) => request("near-valid", "credentials", { ...parts, credential }))
      )
    }

    const arbitrary = fc
      .record({
        segments: fc.record(Object.fromEntries(pathParams.map((p) => [p.name, segment.arbitrary]))),
        query: fc.array(
          fc
            .tuple(
              fc.oneof(fc.constantFrom(...queryParams.map((p) => p.name), "x"), fc.string({ maxLength: 10 })),
              fc.oneof(fc.string({ unit: "binary", maxLength: 40 }).map(pct), fc.constantFrom(...BAD_ESCAPES))
            )
            .map(([k, v]) => `${pct(k)}=${v}`),
          { maxLength: 5 }
        ),
        body: fc.option(
          fc.oneof(
            fc.jsonValue().map((v) => JSON.stringify(v)),
            fc.string({ unit: "binary", maxLength: 200 }),
            fc.uint8Array({ maxLength: 200 })
          ),
          { nil: undefined }
        ),
        contentType: fc.constantFrom(route.body?.contentType ?? "application/json", ...CONTENT_TYPES)
      })
      .map((parts) => request("arbitrary", "", parts))

    return fc.oneof(
      { weight: 2, arbitrary: valid },
      { weight: 6, arbitrary: fc.oneof(...nearValid) },
      { weight: 2, arbitrary: arbitrary }
    )
  }
}
