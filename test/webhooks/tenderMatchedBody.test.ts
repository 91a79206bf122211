import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { tenderMatchedPayload } from "../../src/domain/scoring/MatchEvent.js"
import { TenderMatchedBody, tenderMatchedBody } from "../../src/domain/webhooks/TenderMatchedBody.js"
import { openApiDocument } from "../../src/http/OpenApiDocument.js"

/** The tender.matched body: spec 6.1's fields untouched, plus company_name and tender.contracting_authority. */
describe("the tender.matched body", () => {
  const event = tenderMatchedPayload(
    "7d72d7af-90c7-4a87-a8e4-853bbce9d87b",
    {
      id: "0b5bd3a1-6f43-4c4e-9d64-3d0d7c1f8a10",
      title: "Furnizare mobilier școlar",
      cpvCodes: ["39160000-1"],
      deadline: new Date("2026-03-01T10:00:00Z"),
      estimatedValueRon: 250000,
      sourceUrl: "https://example.test/notice"
    },
    { overallScore: 81, verdict: "GO" },
    new Date("2026-02-01T08:00:00Z")
  )

  it("keeps every field of spec 6.1 as it was and adds the two names beside what they describe", () => {
    const body = tenderMatchedBody(event, { companyName: "Mobila Nord SRL", authorityName: "Școala Gimnazială nr. 1" })
    expect(body).toEqual({
      ...event,
      company_name: "Mobila Nord SRL",
      tender: { ...event.tender, contracting_authority: "Școala Gimnazială nr. 1" }
    })
    // The JSON text keeps spec 6.1's order, each extension after the field it belongs to.
    expect(Object.keys(JSON.parse(JSON.stringify(body)))).toEqual([
      "event",
      "company_id",
      "company_name",
      "tender",
      "timestamp"
    ])
    expect(Object.keys(body.tender).at(-1)).toBe("contracting_authority")
    expect(Schema.decodeUnknownSync(TenderMatchedBody)(body)).toEqual(body)
  })

  it("is documented in the OpenAPI document as the callback of POST /api/v1/webhooks, extensions named", () => {
    const operation = (openApiDocument("http://x").paths as any)["/api/v1/webhooks"].post
    const delivery = operation.callbacks["tender.matched"]["{$request.body#/url}"].post
    const schema = delivery.requestBody.content["application/json"].schema
    expect(schema.required).toEqual(["event", "company_id", "company_name", "tender", "timestamp"])
    expect(schema.properties.company_name.description).toMatch(/^Extension/)
    expect(schema.properties.tender.properties.contracting_authority.description).toMatch(/^Extension/)
    expect(JSON.stringify(schema)).not.toContain("$ref")
    expect(delivery.parameters.map((p: { name: string }) => p.name)).toEqual([
      "X-SVC-Signature",
      "X-SVC-Event",
      "X-SVC-Timestamp",
      "X-SVC-Delivery"
    ])
  })
})
