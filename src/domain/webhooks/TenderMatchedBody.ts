import { Schema } from "effect"
import type { TenderMatchedPayload } from "../scoring/MatchEvent.js"
import { Verdict } from "../scoring/Verdict.js"
import { DateTimeString } from "../Timestamps.js"

/**
 * The body a `tender.matched` delivery sends: every field of spec 6.1, unchanged, plus two
 * extensions of ours so a consultant's receiver can tell clients and buyers apart without a second
 * call: top-level `company_name` (the company the match is for) and `tender.contracting_authority`
 * (the buyer's name, a string as in the tender list item of spec 2.1). Receivers that know only
 * spec 6.1 ignore them.
 */
// Inline schemas (no identifiers), so the OpenAPI callback's JSON Schema holds no $defs references.
const Uuid = Schema.String.pipe(Schema.pattern(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/))

export const TenderMatchedBody = Schema.Struct({
  event: Schema.Literal("tender.matched"),
  company_id: Uuid,
  company_name: Schema.String.annotations({ description: "Extension: the company's name" }),
  tender: Schema.Struct({
    id: Uuid,
    title: Schema.String,
    score: Schema.Number.pipe(Schema.int()),
    verdict: Verdict,
    cpv_codes: Schema.Array(Schema.String),
    deadline: Schema.NullOr(DateTimeString),
    estimated_value_ron: Schema.NullOr(Schema.Number),
    source_url: Schema.String,
    contracting_authority: Schema.String.annotations({ description: "Extension: the contracting authority's name" })
  }),
  timestamp: DateTimeString
}).annotations({
  description:
    "Body of a tender.matched delivery: the fields of spec 6.1 plus the extensions company_name and tender.contracting_authority"
})
export type TenderMatchedBody = typeof TenderMatchedBody.Type

/** The names the extensions carry, looked up when the delivery is written. */
export interface MatchNames {
  readonly companyName: string
  readonly authorityName: string
}

/** Spec 6.1's payload with the extensions, each beside the field it describes (company, tender). */
export const tenderMatchedBody = (event: TenderMatchedPayload, names: MatchNames): TenderMatchedBody => ({
  event: event.event,
  company_id: event.company_id,
  company_name: names.companyName,
  tender: { ...event.tender, contracting_authority: names.authorityName },
  timestamp: event.timestamp
})
