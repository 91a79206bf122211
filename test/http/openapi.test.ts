import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createConfig, lintFromString } from "@redocly/openapi-core"
import openapiTS, { astToString } from "openapi-typescript"
import ts from "typescript"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/** A value the document describes by name: a property of a schema, a parameter, a header. */
interface NamedValue {
  readonly name: string
  readonly where: string
  readonly schema: any
}

/**
 * Every named value of the document, wherever it sits: the properties of every schema (components,
 * request and response bodies, callbacks, nested objects and array items) and every parameter and
 * header.
 */
const namedValues = (document: any): Array<NamedValue> => {
  const found: Array<NamedValue> = []
  const walk = (node: unknown, where: string) => {
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) walk(item, `${where}/${i}`)
      return
    }
    if (node === null || typeof node !== "object") return
    const object = node as Record<string, any>
    if (object.properties !== undefined && typeof object.properties === "object") {
      for (const [name, schema] of Object.entries(object.properties)) {
        found.push({ name, where: `${where}/properties/${name}`, schema })
      }
    }
    if (typeof object.name === "string" && typeof object.in === "string" && object.schema !== undefined) {
      found.push({ name: object.name, where, schema: object.schema })
    }
    if (where.endsWith("/headers")) {
      for (const [name, header] of Object.entries<any>(object)) {
        if (header?.schema !== undefined) found.push({ name, where: `${where}/${name}`, schema: header.schema })
      }
    }
    for (const [key, value] of Object.entries(object)) walk(value, `${where}/${key}`)
  }
  walk(document, "#")
  return found
}

/** The schemas a value may take: $refs followed, unions opened, `null` dropped. */
const alternatives = (document: any, schema: any): Array<any> => {
  if (schema?.$ref !== undefined) {
    const target = (schema.$ref as string)
      .replace(/^#\//, "")
      .split("/")
      .reduce((node: any, key: string) => node?.[key], document)
    return alternatives(document, target)
  }
  const union = schema?.anyOf ?? schema?.oneOf
  if (Array.isArray(union)) return union.flatMap((member: any) => alternatives(document, member))
  return schema?.type === "null" ? [] : [schema]
}

/**
 * Names that say "a point in time or a day", whatever the style: `createdAt`, `period_ends_at`,
 * `publishDate`, `publish_date`, `deadline`, `deadlineFrom`, `dateTo`, `date_from`, `date`,
 * `timestamp`, `periodStart`, `watermark` (a day), the export's `from`/`to`, `X-Exported-At`.
 */
const TIME_NAME =
  /(At|_at|-At|Date|_date|Deadline|Timestamp|Start|From|To|_from|_to)$|^(date|deadline|timestamp|watermark|from|to)(From|To|_from|_to)?$/

/**
 * The served OpenAPI document, checked the way its users consume it: a linter with the recommended
 * rules, and a client generated from it that must compile.
 */
describe("the served OpenAPI document", () => {
  let server: TestServer
  let document: any
  beforeAll(async () => {
    server = await startTestServer()
    const response = await request(`${server.baseUrl}/api/v1/openapi.json`)
    expect(response.status).toBe(200)
    document = response.body
  })
  afterAll(() => server.close())

  it("passes redocly's recommended rules without errors", async () => {
    const config = await createConfig({ extends: ["recommended"] })
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: "openapi.json", config })
    const describe = (p: (typeof problems)[number]) => `${p.ruleId} ${p.location[0]?.pointer ?? ""}: ${p.message}`
    expect(problems.filter((p) => p.severity === "error").map(describe)).toEqual([])
    // The accepted warnings: the service is private and names no license; and the spec's own report
    // paths overlap (`/reports/{companyId}/pdf` and `/reports/download/{token}` both match
    // `/reports/download/pdf`; the static segment wins, so that is a token download).
    const warnings = problems.filter((p) => p.severity !== "error")
    expect(warnings.map((p) => p.ruleId)).toEqual(["info-license", "no-ambiguous-paths"])
    expect(warnings[1]!.message).toContain("/api/v1/reports/download/{token}")
  })

  it("names this deployment as the server", () => {
    expect(document.servers).toEqual([{ url: "http://127.0.0.1", description: "This deployment (PUBLIC_BASE_URL)" }])
  })

  it("documents query numbers as integers with their bounds and defaults", () => {
    const parameter = (path: string, name: string) =>
      document.paths[path].get.parameters.find((p: { name: string }) => p.name === name).schema
    expect(parameter("/api/v1/tenders", "limit")).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 20
    })
    expect(parameter("/api/v1/tenders", "minScore")).toMatchObject({
      type: "integer",
      minimum: 0,
      maximum: 100,
      default: 0
    })
    expect(parameter("/api/v1/export/tenders", "limit")).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 1000,
      default: 100
    })
    expect(parameter("/api/v1/alerts", "page")).toMatchObject({ type: "integer", minimum: 1, default: 1 })
    expect(parameter("/api/v1/app/companies/{companyId}/tenders", "limit")).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 20
    })
    // `status` documents its default (all) on the key API, where the spec is silent.
    for (const path of ["/api/v1/tenders", "/api/v1/export/tenders"]) {
      expect(parameter(path, "status")).toMatchObject({
        enum: ["open", "closed", "all"],
        description: expect.stringContaining("`all` (the default)")
      })
    }
    expect(parameter("/api/v1/cpv", "limit")).toMatchObject({ type: "integer", minimum: 1, maximum: 50, default: 20 })
    expect(parameter("/api/v1/alerts", "limit")).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 20
    })
  })

  it("describes both media types of the export and the headers of the key API", () => {
    const ok = document.paths["/api/v1/export/tenders"].get.responses["200"]
    expect(Object.keys(ok.content).sort()).toEqual(["application/json", "text/csv"])
    expect(Object.keys(ok.headers).sort()).toEqual([
      "Content-Disposition",
      "X-API-Credits-Cost",
      "X-API-Credits-Remaining",
      "X-Export-Count",
      "X-Exported-At",
      "X-Has-More",
      "X-Next-Cursor"
    ])
    const list = document.paths["/api/v1/tenders"].get.responses
    expect(list["200"].headers["X-API-Credits-Remaining"].required).toBe(true)
    expect(list["402"].headers["X-API-Credits-Cost"]).toBeDefined()
    expect(list["401"].headers).toBeUndefined()
    expect(list["429"].headers["Retry-After"]).toBeDefined()
    expect(document.paths["/api/v1/auth/login"].post.responses["429"].headers["Retry-After"]).toBeDefined()
  })

  it("types the export row as spec 2.4 does: the beta fields nullable, not null only, the factors integers", () => {
    const row =
      document.paths["/api/v1/export/tenders"].get.responses["200"].content["application/json"].schema.properties.data
        .items
    const types = (name: string) => (row.properties[name].anyOf ?? [row.properties[name]]).map((s: any) => s.type)
    // A client generated from the document keeps decoding rows once these are filled in (spec 9.3).
    expect(types("cpv_description")).toEqual(["string", "null"])
    expect(types("price_benchmark_median_eur")).toEqual(["number", "null"])
    expect(types("price_benchmark_signal")).toEqual(["string", "null"])
    expect(row.properties.price_benchmark_signal.anyOf[0].enum).toEqual(["below_market", "in_range", "above_market"])
    for (const factor of ["score_cpv", "score_semantic", "score_keyword", "score_value_fit", "score_historical"]) {
      expect(row.required, factor).toContain(factor)
      expect(row.properties[factor].anyOf, factor).toBeUndefined()
      expect(alternatives(document, row.properties[factor])[0]?.type, factor).toBe("integer")
    }
  })

  it("gives every timestamp `format: date-time` and every day `format: date`, wherever it is", () => {
    const values = namedValues(document)
    const timeValues = values.filter((value) => TIME_NAME.test(value.name))
    const unformatted = timeValues.flatMap((value) =>
      alternatives(document, value.schema)
        // Unix seconds (a webhook signature's X-SVC-Timestamp) are digits, documented by their pattern.
        .filter(
          (schema) =>
            schema?.type === "string" && !["date-time", "date"].includes(schema.format) && schema.pattern !== "^\\d+$"
        )
        .map(() => `${value.where} (${value.name})`)
    )
    expect(unformatted).toEqual([])
    // The rule found what it is meant to find: each style of name, each kind of place.
    const names = new Set(timeValues.map((value) => value.name))
    for (const name of ["createdAt", "period_ends_at", "periodEndsAt", "publish_date", "publishDate", "deadline"]) {
      expect(names, name).toContain(name)
    }
    for (const name of ["timestamp", "dateFrom", "date_from", "periodStart", "watermark", "lastErrorAt", "from"]) {
      expect(names, name).toContain(name)
    }
    expect(timeValues.length).toBeGreaterThan(60)
    // And no string the rule missed holds a time: none is described as ISO 8601 or YYYY-MM-DD.
    const missed = values
      .filter((value) => !TIME_NAME.test(value.name))
      .flatMap((value) => alternatives(document, value.schema).map((schema) => ({ value, schema })))
      .filter(
        ({ schema }) =>
          schema?.type === "string" &&
          schema.format === undefined &&
          /ISO 8601|YYYY-MM-DD|\\d\{4\}-\\d\{2\}-\\d\{2\}/i.test(`${schema.description ?? ""} ${schema.pattern ?? ""}`)
      )
      .map(({ value }) => `${value.where} (${value.name})`)
    expect(missed).toEqual([])
  })

  it("documents the alerts' `unread` parameter as a boolean", () => {
    const parameter = document.paths["/api/v1/alerts"].get.parameters.find((p: { name: string }) => p.name === "unread")
    expect(parameter.schema).toEqual({ type: "boolean" })
  })

  it("generates TypeScript types (openapi-typescript) that a typed client compiles against", async () => {
    const types = astToString(await openapiTS(document))
    const dir = await mkdtemp(join(tmpdir(), "tss-openapi-client-"))
    try {
      await writeFile(join(dir, "api.d.ts"), types)
      await writeFile(join(dir, "client.ts"), CLIENT)
      const program = ts.createProgram([join(dir, "client.ts")], {
        strict: true,
        noEmit: true,
        noUnusedLocals: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
        types: []
      })
      const diagnostics = ts
        .getPreEmitDiagnostics(program)
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))
      expect(diagnostics).toEqual([])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

/** A small client over the generated types; it compiles only if the document types what it uses. */
const CLIENT = `
import type { paths } from "./api"

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
const assert = <T extends true>(): T => true as T

type TendersQuery = NonNullable<paths["/api/v1/tenders"]["get"]["parameters"]["query"]>
type ExportQuery = NonNullable<paths["/api/v1/export/tenders"]["get"]["parameters"]["query"]>
type AlertsQuery = NonNullable<paths["/api/v1/alerts"]["get"]["parameters"]["query"]>
type ExportOk = paths["/api/v1/export/tenders"]["get"]["responses"][200]
type TendersOk = paths["/api/v1/tenders"]["get"]["responses"][200]
type AppTendersQuery = NonNullable<paths["/api/v1/app/companies/{companyId}/tenders"]["get"]["parameters"]["query"]>
type CpvQuery = NonNullable<paths["/api/v1/cpv"]["get"]["parameters"]["query"]>
type AppTenderOk = paths["/api/v1/app/companies/{companyId}/tenders/{tenderId}"]["get"]["responses"][200]
type AppFactors = AppTenderOk["content"]["application/json"]["data"]["breakdown"]["factors"]

export const checks = [
  assert<Equal<TendersQuery["limit"], number | undefined>>(),
  assert<Equal<TendersQuery["minScore"], number | undefined>>(),
  assert<Equal<ExportQuery["limit"], number | undefined>>(),
  assert<Equal<AlertsQuery["page"], number | undefined>>(),
  assert<Equal<ExportOk["content"]["text/csv"], string>>(),
  assert<Equal<ExportOk["headers"]["X-Has-More"], boolean | undefined>>(),
  assert<Equal<TendersOk["headers"]["X-API-Credits-Remaining"], number>>(),
  assert<Equal<AppTendersQuery["limit"], number | undefined>>(),
  assert<Equal<AppTendersQuery["minScore"], number | undefined>>(),
  assert<Equal<AppTendersQuery["status"], "open" | "closed" | "all" | undefined>>(),
  assert<Equal<AppTendersQuery["sort"], "score" | "deadline" | "value" | undefined>>(),
  assert<Equal<TendersQuery["status"], "open" | "closed" | "all" | undefined>>(),
  assert<Equal<ExportQuery["status"], "open" | "closed" | "all" | undefined>>(),
  assert<Equal<CpvQuery["q"], string>>(),
  assert<Equal<CpvQuery["limit"], number | undefined>>(),
  assert<Equal<AppFactors["semantic"]["reason"], string | undefined>>(),
  assert<Equal<AppFactors["cpv"]["cpvType"], "primary" | "additional" | "none">>()
]

const search = (query: Record<string, string | number | undefined>) =>
  new URLSearchParams(
    Object.entries(query).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]]))
  )

export const listTenders = async (
  baseUrl: string,
  apiKey: string,
  query: TendersQuery
): Promise<{ items: TendersOk["content"]["application/json"]["data"]; next: string | null; credits: number }> => {
  const response = await fetch(\`\${baseUrl}/api/v1/tenders?\${search(query)}\`, {
    headers: { authorization: \`Bearer \${apiKey}\` }
  })
  const body = (await response.json()) as TendersOk["content"]["application/json"]
  return { items: body.data, next: body.meta.next_cursor, credits: body.meta.credits.remaining }
}

export const exportCsv = async (baseUrl: string, apiKey: string, query: ExportQuery): Promise<ExportOk["content"]["text/csv"]> => {
  const response = await fetch(\`\${baseUrl}/api/v1/export/tenders?\${search({ ...query, format: "csv" })}\`, {
    headers: { authorization: \`Bearer \${apiKey}\` }
  })
  return response.text()
}

// A page size given as a string does not compile: that is what the document used to say.
// @ts-expect-error
export const wrong: TendersQuery = { companyId: "00000000-0000-4000-8000-000000000000", limit: "20" }
export const fine: TendersQuery = { companyId: "00000000-0000-4000-8000-000000000000", limit: 20, minScore: 50 }
`
