import { isUtf8 } from "node:buffer"
import { Either } from "effect"

/**
 * The character encodings an import file may be in: UTF-8 (the default, and what every source serves),
 * and the two Romanian single-byte ones a file saved on Windows may be in (Excel on a Romanian Windows
 * writes Windows-1250). Node's TextDecoder reads all three.
 */
export const FILE_ENCODINGS = ["utf-8", "windows-1250", "iso-8859-2"] as const
export type FileEncoding = (typeof FILE_ENCODINGS)[number]

/** Where the encoding a file was read in came from. */
export type EncodingChoice = "option" | "xml-declaration" | "default"

export interface DecodedFile {
  readonly text: string
  readonly encoding: FileEncoding
  readonly chosenBy: EncodingChoice
}

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const

const hasUtf8Bom = (bytes: Uint8Array) => UTF8_BOM.every((byte, i) => bytes[i] === byte)

/**
 * The offset of the first byte that does not begin a well-formed UTF-8 sequence (a stray continuation
 * byte, a lead byte without its continuation bytes, an overlong form, a surrogate, beyond U+10FFFF), or
 * -1 when every byte is well formed: the ranges of the WHATWG UTF-8 decoder, which TextDecoder applies.
 */
export const firstInvalidUtf8Byte = (bytes: Uint8Array): number => {
  let i = 0
  while (i < bytes.length) {
    const lead = bytes[i]!
    if (lead < 0x80) {
      i += 1
      continue
    }
    let following: number
    let lower = 0x80
    let upper = 0xbf
    if (lead >= 0xc2 && lead <= 0xdf) following = 1
    else if (lead >= 0xe0 && lead <= 0xef) {
      following = 2
      if (lead === 0xe0) lower = 0xa0
      if (lead === 0xed) upper = 0x9f
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      following = 3
      if (lead === 0xf0) lower = 0x90
      if (lead === 0xf4) upper = 0x8f
    } else return i
    for (let k = 1; k <= following; k++) {
      const byte = bytes[i + k]
      if (byte === undefined || byte < (k === 1 ? lower : 0x80) || byte > (k === 1 ? upper : 0xbf)) return i
    }
    i += following + 1
  }
  return -1
}

/** "byte offset 245, line 2": offsets count from 0, as cmp, xxd and dd do; lines from 1. */
const position = (bytes: Uint8Array, offset: number) => {
  let line = 1
  for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line += 1
  return `byte offset ${offset}, line ${line}`
}

/** A text quoted in a refusal, its control characters (a C1 one from iso-8859-2) written as \uXXXX. */
const quoted = (text: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escaping them is the point
  `"${text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}"`

const hex = (byte: number) => `0x${byte.toString(16).toUpperCase().padStart(2, "0")}`

/** What an XML prolog says (`<?xml version="1.0" encoding="windows-1250"?>`), read as ASCII; undefined without one. */
export const declaredXmlEncoding = (bytes: Uint8Array): string | undefined => {
  const start = Buffer.from(bytes.subarray(hasUtf8Bom(bytes) ? 3 : 0, 1024)).toString("latin1")
  const prolog = /^\s*<\?xml\s[^?>]*?\bencoding\s*=\s*(["'])([^"'<>?]*)\1/.exec(start)
  return prolog?.[2]?.trim()
}

/**
 * The accepted encoding a declared label names, by TextDecoder's own label table (`cp1250`, `latin2`,
 * `utf8` too); ASCII, which that table reads as windows-1252, is a subset of UTF-8.
 */
const acceptedEncodingOf = (label: string): FileEncoding | undefined => {
  if (/^(us-)?ascii$/i.test(label)) return "utf-8"
  try {
    const encoding = new TextDecoder(label).encoding
    return (FILE_ENCODINGS as ReadonlyArray<string>).includes(encoding) ? (encoding as FileEncoding) : undefined
  } catch {
    return undefined
  }
}

/**
 * Decodes an import file's bytes: in `option` when given, else in the encoding its XML prolog declares
 * (the XML rule; TED and eForms files declare UTF-8), else in UTF-8. Nothing is guessed and nothing is
 * replaced: the refusal (worded for the operator) of a file that is not in that encoding names the
 * first byte that shows it and what to pass instead. A UTF-8 byte order mark is skipped. A file read as
 * windows-1250 or iso-8859-2 whose bytes are UTF-8 (a byte order mark, or non-ASCII text that is valid
 * UTF-8, which single-byte Romanian text practically never is) is refused too: read so, "ș" would be
 * stored as "Č™".
 */
export const decodeFile = (bytes: Uint8Array, option: FileEncoding | undefined): Either.Either<DecodedFile, string> => {
  const declared = option === undefined ? declaredXmlEncoding(bytes) : undefined
  const fromDeclaration = declared === undefined ? undefined : acceptedEncodingOf(declared)
  if (declared !== undefined && fromDeclaration === undefined) {
    return Either.left(
      `its XML declaration names encoding ${quoted(declared.slice(0, 40))}, which the import does not read: pass --encoding ${FILE_ENCODINGS.join("|")} (the one its bytes are in), or convert it to UTF-8`
    )
  }
  const encoding = option ?? fromDeclaration ?? "utf-8"
  const chosenBy: EncodingChoice =
    option !== undefined ? "option" : declared !== undefined ? "xml-declaration" : "default"
  const saidBy = chosenBy === "xml-declaration" ? " as its XML declaration says" : ""

  if (encoding === "utf-8") {
    try {
      // fatal: a byte that is not UTF-8 throws instead of becoming U+FFFD; the BOM is skipped (ignoreBOM false).
      return Either.right({ text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), encoding, chosenBy })
    } catch {
      const offset = firstInvalidUtf8Byte(bytes)
      return Either.left(
        `not UTF-8${saidBy}: byte ${hex(bytes[offset]!)} (${position(bytes, offset)}) is not valid UTF-8; if it is Windows-1250 (a SEAP CSV saved by Excel on a Romanian Windows) pass --encoding windows-1250, or convert it to UTF-8`
      )
    }
  }

  const instead =
    chosenBy === "option" ? `drop --encoding ${encoding}` : "pass --encoding utf-8, or correct its XML declaration"
  if (hasUtf8Bom(bytes)) {
    return Either.left(`not ${encoding}${saidBy}: it starts with a UTF-8 byte order mark, so it is UTF-8: ${instead}`)
  }
  const firstNonAscii = bytes.findIndex((byte) => byte >= 0x80)
  if (firstNonAscii !== -1 && isUtf8(bytes)) {
    const character = String.fromCodePoint(
      new TextDecoder().decode(bytes.subarray(firstNonAscii, firstNonAscii + 4)).codePointAt(0)!
    )
    const misread = new TextDecoder(encoding).decode(Buffer.from(character))
    return Either.left(
      `not ${encoding}${saidBy}: its non-ASCII text is valid UTF-8, so it is UTF-8 (read as ${encoding}, its first non-ASCII character ${quoted(character)}, ${position(bytes, firstNonAscii)}, would become ${quoted(misread)}): ${instead}`
    )
  }
  return Either.right({ text: new TextDecoder(encoding).decode(bytes), encoding, chosenBy })
}
