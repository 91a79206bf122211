import { Either } from "effect"
import { countyFromNuts } from "../Counties.js"
import { bucharestLocalToIso, END_OF_DAY } from "../LocalTime.js"
import { recordValueFields, type TenderRecordInput } from "../TenderRecord.js"
import { type ParsedItem, parsed, skipped } from "./ParsedItem.js"
import { all, attr, descendants, first, parseXmlFile, text, type XmlNode } from "./Xml.js"

/**
 * eForms (UBL 2.3) notices: `ContractNotice` (contract), a `PriorInformationNotice` used as a call
 * for competition (`pin-cfc-standard`, `pin-cfc-social`: a contract, open to expressions of interest)
 * and `ContractAwardNotice` (award, VEAT included). Other prior information notices announce, and a
 * contract modification notice (`can-modif`) changes a contract awarded long ago: neither is a tender
 * of its own, both are skipped. The source id is the notice UUID; a change
 * notice carries the id of the notice it changes, so importing it updates that tender in place (its
 * own id, `version_id`, lets a change of that change find the tender too), and its issue date and
 * time (`issued_at`) keep an older version read later from undoing it. A change notice whose reason is
 * "Notice cancelled" marks its item `cancelled`: the procedure's tender is closed.
 * Multilingual texts are read in Romanian when present, else in the notice's language.
 */

const ROOTS = { ContractNotice: "contract", ContractAwardNotice: "award", PriorInformationNotice: "contract" } as const

/** The prior information notices that call for competition (eForms notice subtypes 10-14 and CEI). */
const CALLS_FOR_COMPETITION = new Set(["pin-cfc-standard", "pin-cfc-social"])

/** The text of a multilingual field in the preferred language. */
const inLanguage = (values: unknown, languages: ReadonlyArray<string>): string | undefined => {
  const nodes = all(values)
  for (const language of languages) {
    const match = nodes.find((node) => attr(node, "languageID") === language)
    if (match !== undefined) return text(match)
  }
  return text(nodes[0])
}

/**
 * "2020-02-04+02:00" and "10:00:00+02:00" → "2020-02-04T10:00:00+02:00" (Romanian time when no
 * offset); without a time, the day's start, or its end for a deadline (`dayEnd`).
 */
const ublDateTime = (date: string | undefined, time: string | undefined, dayEnd = false): string | null => {
  if (date === undefined) return null
  const d = /^(\d{4}-\d{2}-\d{2})(Z|[+-]\d{2}:\d{2})?$/.exec(date)
  const t = /^(\d{2}:\d{2}(?::\d{2})?)(Z|[+-]\d{2}:\d{2})?$/.exec(time ?? "")
  if (d === null) return null
  const zone = t?.[2] ?? d[2]
  const clock = t?.[1] ?? (dayEnd ? END_OF_DAY : "00:00:00")
  return zone === undefined ? bucharestLocalToIso(d[1]!, clock) : `${d[1]}T${clock}${zone}`
}

const cpvsOf = (project: XmlNode | undefined): Array<string | undefined> => [
  text(first(project?.MainCommodityClassification)?.ItemClassificationCode),
  ...all(project?.AdditionalCommodityClassification).map((c) => text(c.ItemClassificationCode))
]

const amountOf = (node: unknown) => recordValueFields(Number(text(node)), attr(node, "currencyID"))

/**
 * The notice's value from its lots, when the procedure states none: the sum of the lots' estimated
 * values (groups of lots left out), when every lot states one and all in one currency; a part of
 * the lots, or several currencies, would understate or mix it.
 */
const lotsTotal = (lots: ReadonlyArray<XmlNode>) => {
  const amounts = lots
    .filter((lot) => attr(first(lot.ID), "schemeName") === "Lot")
    .map((lot) => first(first(lot.ProcurementProject)?.RequestedTenderTotal)?.EstimatedOverallContractAmount)
  if (amounts.length === 0 || amounts.some((amount) => amount === undefined)) return amountOf(undefined)
  const currencies = new Set(amounts.map((amount) => attr(amount, "currencyID")))
  if (currencies.size !== 1) return amountOf(undefined)
  const cents = amounts.reduce((sum: number, amount) => sum + Math.round(Number(text(amount)) * 100), 0)
  return recordValueFields(cents / 100, [...currencies][0])
}

/**
 * An organisation's company id when it may be a Romanian fiscal code: the organisation is in Romania
 * (or names no country). A foreign national id is no CUI, and authorities are merged and award
 * history matched by fiscal code.
 */
const romanianIdOf = (organization: XmlNode | undefined): string | undefined => {
  const country = text(first(first(organization?.PostalAddress)?.Country)?.IdentificationCode)
  return country === undefined || country === "ROU" ? text(first(organization?.PartyLegalEntity)?.CompanyID) : undefined
}

/**
 * Winners: organisations behind the tenders that lot results mark as won ("selec-w", BT-142) or that a
 * settled contract was concluded with (BT-3202). A VEAT (notice subtypes 25-28) has no BT-142, which
 * the eForms SDK forbids there: its contracts name the tenders they went to.
 */
const winnersOf = (noticeResult: XmlNode | undefined, organizations: Map<string, XmlNode>): Array<string> => {
  if (noticeResult === undefined) return []
  const tenderIdsOf = (node: XmlNode) => all(node.LotTender).map((tender) => text(tender.ID))
  const wonTenders = new Set([
    ...all(noticeResult.LotResult)
      .filter((result) => text(result.TenderResultCode) === "selec-w")
      .flatMap(tenderIdsOf),
    ...all(noticeResult.SettledContract).flatMap(tenderIdsOf)
  ])
  const winningParties = new Set(
    all(noticeResult.LotTender)
      .filter((tender) => wonTenders.has(text(tender.ID)))
      .map((tender) => text(first(tender.TenderingParty)?.ID))
  )
  const organizationIds = all(noticeResult.TenderingParty)
    .filter((party) => winningParties.has(text(party.ID)))
    .flatMap((party) => all(party.Tenderer).map((tenderer) => text(tenderer.ID)))
  return organizationIds
    .map((id) => romanianIdOf(organizations.get(id ?? "")))
    .filter((code): code is string => code !== undefined)
}

const fromEforms = (
  notice: XmlNode,
  noticeType: "contract" | "award",
  noticeId: string,
  versionId: string | undefined
): TenderRecordInput | string => {
  const typeCode = text(notice.NoticeTypeCode)?.trim() ?? ""
  if (/^pin/.test(typeCode) && !CALLS_FOR_COMPETITION.has(typeCode)) {
    return "a prior information notice is not a tender"
  }
  if (typeCode === "can-modif") return "a contract modification notice is not a new award"
  const extension = first(descendants(notice.UBLExtensions, "EformsExtension"))
  const organizations = new Map<string, XmlNode>()
  for (const organization of all(extension?.Organizations?.Organization)) {
    const company = first(organization.Company)
    const id = text(first(company?.PartyIdentification)?.ID)
    if (id !== undefined) organizations.set(id, company)
  }
  const buyerId = text(first(first(notice.ContractingParty)?.Party)?.PartyIdentification?.ID)
  const buyer = organizations.get(buyerId ?? "")
  const languages = ["RON", text(notice.NoticeLanguageCode) ?? "ENG"]
  const project = first(notice.ProcurementProject)
  const lots = all(notice.ProcurementProjectLot)
  const lotProjects = lots.map((lot) => first(lot.ProcurementProject))
  // A lot's deadline: for tenders or, in a procedure in stages (restricted, negotiated, competitive
  // dialogue), for requests to participate, the one a bidder must meet first (as TED XML's
  // DATE_RECEIPT_TENDERS covers both) or, in a call for competition by prior information notice, for
  // expressions of interest (BT-630). Without it the tender would count as open forever.
  const deadlines = lots
    .map((lot) => {
      const process = first(lot.TenderingProcess)
      return (
        first(process?.TenderSubmissionDeadlinePeriod) ??
        first(process?.ParticipationRequestReceptionPeriod) ??
        first(descendants(process?.UBLExtensions, "InterestExpressionReceptionPeriod"))
      )
    })
    .map((period) => ublDateTime(text(period?.EndDate), text(period?.EndTime), true))
    .filter((d): d is string => d !== null)
    .sort((a, b) => Date.parse(a) - Date.parse(b))
  const noticeResult = first(extension?.NoticeResult)
  const value = first(project?.RequestedTenderTotal)?.EstimatedOverallContractAmount ?? noticeResult?.TotalAmount
  const cpvs = [...cpvsOf(project), ...lotProjects.flatMap(cpvsOf)].filter((c): c is string => c !== undefined)
  const publication = first(extension?.Publication)
  const publicationId = text(publication?.NoticePublicationID)
  return {
    source: "ted-eforms",
    source_id: noticeId,
    notice_type: noticeType,
    title: inLanguage(project?.Name, languages) ?? inLanguage(lotProjects[0]?.Name, languages) ?? "",
    description: inLanguage(project?.Description, languages) ?? "",
    cpv_codes: cpvs as [string, ...Array<string>],
    contracting_authority: {
      name:
        inLanguage(
          all(buyer?.PartyName).flatMap((p) => all(p.Name)),
          languages
        ) ??
        buyerId ??
        "",
      fiscal_code: romanianIdOf(buyer) ?? null,
      county: countyFromNuts(text(first(buyer?.PostalAddress)?.CountrySubentityCode))
    },
    deadline: deadlines[0] ?? null,
    ...(value === undefined ? lotsTotal(lots) : amountOf(value)),
    publish_date:
      ublDateTime(text(publication?.PublicationDate), undefined) ??
      ublDateTime(text(notice.IssueDate), text(notice.IssueTime)) ??
      "",
    // Which version of the notice this is: a change notice is issued after the notice it changes.
    issued_at: ublDateTime(text(notice.IssueDate), text(notice.IssueTime)),
    // A change's own id: the next change names it rather than the original (the store follows it).
    ...(versionId === undefined || versionId === noticeId ? {} : { version_id: versionId }),
    source_url: publicationId === undefined ? "" : `https://ted.europa.eu/en/notice/-/detail/${publicationId}`,
    winner_fiscal_codes: [...new Set(winnersOf(noticeResult, organizations))]
  }
}

/**
 * Whether a change notice cancels the notice it changes: its change reason (BT-140, codelist
 * change-corrig-justification) is `cancel`, "Notice cancelled". `cancel-intent` ("Cancellation
 * intention") announces one and closes nothing yet.
 */
const cancelsNotice = (changes: XmlNode | undefined): boolean =>
  all(changes?.ChangeReason).some((reason) => text(reason.ReasonCode)?.trim() === "cancel")

export const parseEforms = (text_: string): ReadonlyArray<ParsedItem> => {
  const file = parseXmlFile(text_)
  if (Either.isLeft(file)) return [file.left]
  const document = file.right
  const rootName = Object.keys(document).find((key) => key !== "?xml")
  const notice = rootName === undefined ? undefined : first(document[rootName])
  const ownId = text(notice?.ID)
  const changes = first(descendants(notice?.UBLExtensions, "Changes"))
  const changed = text(changes?.ChangedNoticeIdentifier)
  // "c4c415ee-…-01": the changed notice's id with its version suffix. A change of a change names the
  // first change (eForms: the latest version), whose id the store maps to the original's tender.
  const noticeId = changed?.replace(/-\d{2}$/, "") ?? ownId
  const ref = `notice ${ownId ?? "?"}`
  // No root element, or one no format reads: the file as a whole is not a notice.
  if (rootName === undefined || notice === undefined) return [skipped("file", "no root element")]
  const noticeType = ROOTS[rootName as keyof typeof ROOTS]
  if (noticeType === undefined) {
    return [
      skipped(
        "file",
        `the root element <${rootName}> is not an eForms ContractNotice, ContractAwardNotice or PriorInformationNotice`
      )
    ]
  }
  if (noticeId === undefined) return [skipped(ref, "no eForms notice with an ID")]
  const record = fromEforms(notice, noticeType, noticeId, ownId)
  return [typeof record === "string" ? skipped(ref, record) : parsed(ref, record, cancelsNotice(changes))]
}
