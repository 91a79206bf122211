import { Either } from "effect"
import { XMLParser } from "fast-xml-parser"
import { errorMessage, type ParsedItem, skipped } from "./ParsedItem.js"

/** A parsed XML element: child elements by local name, attributes as "@_name", text as "#text". */
export type XmlNode = Record<string, any>

/**
 * Namespace prefixes dropped; every value kept as a string (CPV "09331200", fiscal code "00064203").
 * Character references (`&#537;`, `&#x219;`) are decoded as XML requires: the parser's own entity
 * handling covers only the five named ones, and a notice written with references kept them as text.
 */
const parser = new XMLParser({
  htmlEntities: true,
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  textNodeName: "#text"
})

/** The document of an XML file, or the one skip of a file that is not XML at all. */
export const parseXmlFile = (text: string): Either.Either<XmlNode, ParsedItem> =>
  Either.try({
    try: () => parser.parse(text) as XmlNode,
    catch: (error) => skipped("file", `not valid XML: ${errorMessage(error)}`)
  })

/** Zero, one or many children, always as an array. */
export const all = (value: unknown): Array<any> =>
  value === undefined || value === null ? [] : Array.isArray(value) ? value : [value]

/** The first of zero, one or many children. */
export const first = (value: unknown): any => all(value)[0]

/** The text of an element (string content or "#text"), trimmed; undefined when empty. */
export const text = (value: unknown): string | undefined => {
  const node = first(value)
  const raw = typeof node === "string" ? node : typeof node === "object" && node !== null ? node["#text"] : undefined
  return typeof raw === "string" && raw.trim() !== "" ? raw.trim() : undefined
}

export const attr = (value: unknown, name: string): string | undefined => {
  const node = first(value)
  const raw = typeof node === "object" && node !== null ? node[`@_${name}`] : undefined
  return typeof raw === "string" && raw.trim() !== "" ? raw.trim() : undefined
}

/** Every descendant element with this local name, in document order. */
export const descendants = (node: unknown, name: string): Array<any> => {
  const found: Array<any> = []
  const walk = (value: unknown) => {
    if (Array.isArray(value)) return value.forEach(walk)
    if (typeof value !== "object" || value === null) return
    for (const [key, child] of Object.entries(value)) {
      if (key.startsWith("@_")) continue
      if (key === name) found.push(...all(child))
      walk(child)
    }
  }
  walk(node)
  return found
}

/** The paragraphs of a TED text block (<TITLE><P>…</P><P>…</P></TITLE>) joined by spaces. */
export const paragraphs = (value: unknown): string | undefined => {
  const node = first(value)
  if (node === undefined) return undefined
  const parts = typeof node === "string" ? [node] : all(node.P).map((p) => text(p) ?? "")
  const joined = parts.join(" ").trim()
  return joined === "" ? text(node) : joined
}
