import { Either } from "effect"
import { BUCHAREST_TIME_ZONE } from "../../BucharestTime.js"
import { countyFromNuts } from "../Counties.js"
import { timeZoneOfCountry } from "../CountryTimeZones.js"
import { bucharestLocalToIso, END_OF_DAY, localToIso } from "../LocalTime.js"
import { recordValueFields, type TenderRecordInput } from "../TenderRecord.js"
import { type ParsedItem, parsed, skipped } from "./ParsedItem.js"
import { all, attr, descendants, first, paragraphs, parseXmlFile, text, type XmlNode } from "./Xml.js"

/**
 * TED XML, schema R2.0.9 (`TED_EXPORT`): one notice per file. Contract notices (F02, F05, F21-F24,
 * the qualification system F07, the design contest F12) and award notices (F03, F06, F15, F25, the
 * design contest's results F13) are read; others (prior information, corrigenda,
 * modifications) are skipped with the form named. The source id is the OJ S notice number (DOC_ID).
 */

const CONTRACT_FORMS = new Set(["F02", "F05", "F07", "F12", "F21", "F22", "F23", "F24"])
const AWARD_FORMS = new Set(["F03", "F06", "F13", "F15", "F25"])

/** Form elements are named like "F02_2014"; the RO version when the notice has one, else the original. */
const pickForm = (formSection: XmlNode): { name: string; form: XmlNode } | undefined => {
  const forms = Object.entries(formSection)
    .filter(([key]) => /^F\d\d_\d{4}$/.test(key) || /^(CONTRACT|CONTRACT_AWARD|OTH_NOT)/.test(key))
    .flatMap(([key, value]) => all(value).map((form: XmlNode) => ({ name: key, form })))
  return (
    forms.find(({ form }) => attr(form, "LG") === "RO") ??
    forms.find(({ form }) => attr(form, "CATEGORY") === "ORIGINAL") ??
    forms[0]
  )
}

const cpvsOf = (objectContract: XmlNode): Array<string> => {
  const main = attr(first(objectContract?.CPV_MAIN)?.CPV_CODE, "CODE")
  const additional = descendants(objectContract, "CPV_ADDITIONAL").flatMap((node) =>
    all(node.CPV_CODE).map((code) => attr(code, "CODE"))
  )
  return [main, ...additional].filter((code): code is string => code !== undefined)
}

/**
 * The lots' estimated values (OBJECT_DESCR/VAL_OBJECT) summed, when every lot states one and all in
 * one currency, as eForms reads them: a part of the lots, or several currencies, would understate or
 * mix it.
 */
const lotsTotal = (objectContract: XmlNode) => {
  const amounts = all(objectContract?.OBJECT_DESCR).map((lot) => first(lot.VAL_OBJECT))
  if (amounts.length === 0 || amounts.some((amount) => amount === undefined)) return recordValueFields(NaN, undefined)
  const currencies = new Set(amounts.map((amount) => attr(amount, "CURRENCY")))
  if (currencies.size !== 1) return recordValueFields(NaN, undefined)
  const cents = amounts.reduce((sum: number, amount) => sum + Math.round(Number(text(amount)) * 100), 0)
  return recordValueFields(cents / 100, [...currencies][0])
}

/**
 * Value and currency: the estimated total, else the awarded total, else the lots' sum; only RON and
 * EUR are kept.
 */
const estimatedValue = (objectContract: XmlNode, notice: XmlNode) => {
  const node =
    first(objectContract?.VAL_ESTIMATED_TOTAL) ??
    first(objectContract?.VAL_TOTAL) ??
    all(first(notice.CODED_DATA_SECTION?.NOTICE_DATA?.VALUES)?.VALUE).find((v) => attr(v, "TYPE") !== undefined)
  return node === undefined ? lotsTotal(objectContract) : recordValueFields(Number(text(node)), attr(node, "CURRENCY"))
}

/** The deadline, written in the buyer's local time: its country's zone, Bucharest when it names none we know; a day without a time is its end. */
const deadlineOf = (form: XmlNode, notice: XmlNode, buyerCountry: string | undefined): string | null => {
  const zone = timeZoneOfCountry(buyerCountry) ?? BUCHAREST_TIME_ZONE
  const procedure = first(form.PROCEDURE)
  const date = text(procedure?.DATE_RECEIPT_TENDERS)
  if (date !== undefined) return localToIso(zone, date, text(procedure?.TIME_RECEIPT_TENDERS) ?? END_OF_DAY)
  // CODIF_DATA carries "20200508 12:00".
  const coded = text(notice.CODED_DATA_SECTION?.CODIF_DATA?.DT_DATE_FOR_SUBMISSION)
  if (coded === undefined) return null
  const [day, time] = coded.split(/\s+/)
  return localToIso(zone, day ?? "", time ?? END_OF_DAY)
}

/**
 * An address's NATIONALID when it may be a Romanian fiscal code: the address is in Romania (or names
 * no country). A foreign national id is no CUI, and authorities are merged and award history matched
 * by fiscal code.
 */
const romanianIdOf = (address: XmlNode | undefined): string | undefined => {
  const country = attr(first(address?.COUNTRY), "VALUE")
  return country === undefined || country === "RO" ? text(address?.NATIONALID) : undefined
}

const fromTedNotice = (notice: XmlNode, docId: string): TenderRecordInput | string => {
  const formSection = notice.FORM_SECTION
  const picked = formSection === undefined ? undefined : pickForm(formSection)
  if (picked === undefined) return "no form in FORM_SECTION"
  const formCode = picked.name.slice(0, 3)
  const noticeType = AWARD_FORMS.has(formCode) ? "award" : CONTRACT_FORMS.has(formCode) ? "contract" : undefined
  if (noticeType === undefined) return `form ${picked.name} is neither a contract nor an award notice`
  const form = picked.form
  const body = first(form.CONTRACTING_BODY)?.ADDRESS_CONTRACTING_BODY
  const objectContract = first(form.OBJECT_CONTRACT)
  const published = text(notice.CODED_DATA_SECTION?.REF_OJS?.DATE_PUB)
  const winners = descendants(form.AWARD_CONTRACT, "ADDRESS_CONTRACTOR")
    .map(romanianIdOf)
    .filter((id): id is string => id !== undefined)
  const url = text(all(notice.CODED_DATA_SECTION?.NOTICE_DATA?.URI_LIST?.URI_DOC)[0])
  return {
    source: "ted",
    source_id: docId,
    notice_type: noticeType,
    title: paragraphs(objectContract?.TITLE) ?? "",
    description: paragraphs(objectContract?.SHORT_DESCR) ?? "",
    cpv_codes: cpvsOf(objectContract) as [string, ...Array<string>],
    contracting_authority: {
      name: text(first(body)?.OFFICIALNAME) ?? "",
      fiscal_code: romanianIdOf(first(body)) ?? null,
      county: countyFromNuts(attr(first(body)?.NUTS, "CODE"))
    },
    deadline: deadlineOf(form, notice, attr(first(first(body)?.COUNTRY), "VALUE")),
    ...estimatedValue(objectContract, notice),
    publish_date: published === undefined ? "" : (bucharestLocalToIso(published) ?? published),
    source_url: url ?? `https://ted.europa.eu/en/notice/-/detail/${docId}`,
    winner_fiscal_codes: [...new Set(winners)]
  }
}

/** A TED XML document: one TED_EXPORT notice (or several, when files were concatenated under one root). */
export const parseTedXml = (text_: string): ReadonlyArray<ParsedItem> => {
  const file = parseXmlFile(text_)
  if (Either.isLeft(file)) return [file.left]
  const document = file.right
  const notices = all(document.TED_EXPORT)
  if (notices.length === 0) return [skipped("file", "no TED_EXPORT element")]
  return notices.map((notice: XmlNode, index) => {
    const docId = attr(notice, "DOC_ID") ?? text(notice.CODED_DATA_SECTION?.NOTICE_DATA?.NO_DOC_OJS)
    const ref = `notice ${docId ?? `#${index + 1}`}`
    if (docId === undefined) return skipped(ref, "no DOC_ID")
    const record = fromTedNotice(notice, docId)
    return typeof record === "string" ? skipped(ref, record) : parsed(ref, record)
  })
}
