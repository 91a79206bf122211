import * as fs from "node:fs"
import { Effect, Schema } from "effect"
import { projectFile } from "../infra/config/ProjectFiles.js"

/**
 * The real notices the demo is made of: SEAP/SICAP direct awards, TED XML and eForms notices from the
 * project's shared reference data, parsed by the service's importers into `data/demo/notices.json`
 * by `scripts/build-demo-notices.ts` (committed, so a fresh clone needs no other folder). Each keeps
 * its real title, CPV codes, authority, county and value; its dates are the demo's (`DemoData.ts`).
 */
export const DemoNotice = Schema.Struct({
  /** Which sample it came from: a SEAP direct award, a TED XML or an eForms notice. */
  origin: Schema.Literal("sicap", "ted-xml", "eforms"),
  noticeId: Schema.String,
  title: Schema.String,
  description: Schema.String,
  mainCpv: Schema.String,
  additionalCpvs: Schema.Array(Schema.String),
  authorityName: Schema.String,
  authorityFiscalCode: Schema.NullOr(Schema.String),
  county: Schema.NullOr(Schema.String),
  valueRon: Schema.NullOr(Schema.Number),
  /** The real publication day (YYYY-MM-DD): orders the demo's shifted dates. */
  publishedOn: Schema.String,
  sourceUrl: Schema.String
})
export type DemoNotice = typeof DemoNotice.Type

export const DEMO_NOTICES_FILE = projectFile("data/demo/notices.json")

/** The committed notices, decoded (a malformed file is a bug of the repository, so a defect). */
export const readDemoNotices = Effect.sync(() => fs.readFileSync(DEMO_NOTICES_FILE, "utf8")).pipe(
  Effect.flatMap(Schema.decodeUnknown(Schema.parseJson(Schema.Array(DemoNotice)))),
  Effect.orDie
)
