// Builds data/demo/notices.json, the demo's tenders, from the real notices of the project's shared
// reference data (../shared/data/samples: SEAP/SICAP direct awards, TED XML and eForms notices),
// parsed by the service's own importers. The result is committed, so `npm start` on a fresh clone
// needs neither the shared folder nor a parse at start; rerun this script when the samples change:
//
//   npx tsx scripts/build-demo-notices.ts [path to shared/data]   (default ../shared/data)
//
// Kept: contract and direct-award notices with a real title; dropped: awards under 1,000 RON (stamps,
// press notices, fees: real, but no consultant would bid for them), placeholder titles of the eForms
// examples ("Procurement Title ---"), the same notice twice (a change notice of one in the set), and
// notices that are not tenders (PIN, VEAT, award notices of TED/eForms). Dates are not kept as
// published: `src/demo/DemoData.ts` shifts them to the start's `now`.
import * as fs from "node:fs"
import * as path from "node:path"
import { parse } from "csv-parse/sync"
import { makeCpvCatalog } from "../src/domain/tenders/Cpv.js"
import { countyFromNuts } from "../src/domain/tenders/Counties.js"
import { Either } from "effect"
import { decodeFile } from "../src/domain/tenders/formats/FileEncoding.js"
import { readTenders } from "../src/domain/tenders/formats/ImportFormat.js"
import { foldForMatching } from "../src/domain/tenders/RomanianText.js"
import type { Tender } from "../src/domain/tenders/TenderRecord.js"
import type { DemoNotice } from "../src/demo/DemoNotices.js"

const root = path.resolve(import.meta.dirname, "..")
const shared = path.resolve(process.argv[2] ?? path.join(root, "..", "shared", "data"))
const samples = path.join(shared, "samples")
const outDir = path.join(root, "data", "demo")

const catalog = makeCpvCatalog(
  parse(fs.readFileSync(path.join(root, "data", "cpv", "cpv2008_ro_en.csv"), "utf8"), { columns: true }) as Array<{
    code_full: string
  }>
)

/** SEAP writes counties without diacritics ("Timis"); the service's county names have them ("Timiș"). */
const countyNames = new Map<string, string>()
for (const region of [1, 2, 3, 4])
  for (const sub of [1, 2])
    for (let n = 1; n <= 9; n++) {
      const name = countyFromNuts(`RO${region}${sub}${n}`)
      if (name !== null) countyNames.set(foldForMatching(name), name)
    }
const properCounty = (county: string | null) =>
  county === null ? null : (countyNames.get(foldForMatching(county)) ?? county)

const MIN_VALUE_RON = 1_000
const PLACEHOLDER_TITLE = /^Procurement Title\b/
/** The English version of cn_24_multilingual.xml, whose Romanian text the demo keeps. */
const SAME_NOTICE_IN_ENGLISH = "cn_24_minimal.xml"

const notices: Array<DemoNotice> = []
const seenTitles = new Set<string>()
const keep = (origin: DemoNotice["origin"], tender: Tender) => {
  if (tender.noticeType === "award" && origin !== "sicap") return
  if (PLACEHOLDER_TITLE.test(tender.title)) return
  if (tender.estimatedValueRon !== null && tender.estimatedValueRon < MIN_VALUE_RON) return
  const key = `${foldForMatching(tender.authority.name)}|${foldForMatching(tender.title)}`
  if (seenTitles.has(key)) return
  seenTitles.add(key)
  notices.push({
    origin,
    noticeId: tender.sourceNoticeId,
    title: tender.title,
    description: tender.description,
    mainCpv: tender.mainCpv,
    additionalCpvs: [...tender.additionalCpvs],
    authorityName: tender.authority.name,
    authorityFiscalCode: tender.authority.fiscalCode,
    county: properCounty(tender.authority.county),
    valueRon: tender.estimatedValueRon,
    publishedOn: tender.publishDate.toISOString().slice(0, 10),
    sourceUrl: tender.sourceUrl
  })
}

const read = (file: string, format: "sicap" | "ted-xml" | "eforms") => {
  // The CLI's decoding step: a sample that is not UTF-8 stops the build instead of storing U+FFFD.
  const decoded = decodeFile(fs.readFileSync(file), undefined)
  if (Either.isLeft(decoded)) throw new Error(`${file}: ${decoded.left}`)
  const { tenders, skips } = readTenders(decoded.right.text, format, catalog)
  for (const skip of skips) console.error(`skipped ${path.basename(file)} ${skip.ref}: ${skip.reason}`)
  return tenders
}

for (const tender of read(path.join(samples, "sicap", "sicap_pnrr_direct_awards_until_2024-03.csv"), "sicap"))
  keep("sicap", tender)
for (const origin of ["ted-xml", "eforms"] as const) {
  const dir = path.join(samples, origin)
  for (const file of fs.readdirSync(dir).filter((name) => name.endsWith(".xml") && name !== SAME_NOTICE_IN_ENGLISH).sort())
    for (const tender of read(path.join(dir, file), origin)) keep(origin, tender)
}

fs.mkdirSync(outDir, { recursive: true })
fs.writeFileSync(path.join(outDir, "notices.json"), `${JSON.stringify(notices, null, 1)}\n`)
for (const origin of ["sicap", "ted-xml", "eforms"])
  fs.writeFileSync(path.join(outDir, `LICENSE-${origin}`), fs.readFileSync(path.join(samples, origin, "LICENSE")))
console.log(`data/demo/notices.json: ${notices.length} notices`)
