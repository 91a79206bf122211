import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { decodeFile, firstInvalidUtf8Byte } from "../../src/domain/tenders/formats/FileEncoding.js"
import { fixture, toWindows1250 } from "./support.js"

const decoded = (bytes: Uint8Array, option?: Parameters<typeof decodeFile>[1]) => {
  const result = decodeFile(bytes, option)
  if (Either.isLeft(result)) throw new Error(`refused: ${result.left}`)
  return result.right
}
const refusal = (bytes: Uint8Array, option?: Parameters<typeof decodeFile>[1]) => {
  const result = decodeFile(bytes, option)
  if (Either.isRight(result)) throw new Error(`decoded as ${result.right.encoding}`)
  return result.left
}

describe("firstInvalidUtf8Byte", () => {
  it("finds the byte where TextDecoder's first replacement character starts, and -1 exactly when the fatal decoder accepts", () => {
    // Any bytes, biased towards the lead and continuation bytes whose ranges the ill-formed cases are at.
    const special = fc.constantFrom(
      0x80,
      0x8f,
      0x90,
      0x9f,
      0xa0,
      0xbf,
      0xc0,
      0xc2,
      0xdf,
      0xe0,
      0xed,
      0xef,
      0xf0,
      0xf4,
      0xf5
    )
    const bytes = fc
      .array(fc.oneof(fc.integer({ min: 0, max: 255 }), special), { maxLength: 60 })
      .map((values) => Uint8Array.from(values))
    fc.assert(
      fc.property(bytes, (input) => {
        const offset = firstInvalidUtf8Byte(input)
        const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
        if (offset === -1) {
          expect(() => fatal.decode(input)).not.toThrow()
          return
        }
        const prefix = fatal.decode(input.subarray(0, offset))
        const lenient = new TextDecoder("utf-8", { ignoreBOM: true }).decode(input)
        expect(lenient.slice(prefix.length).startsWith("\uFFFD")).toBe(true)
      }),
      { numRuns: 5000 }
    )
  })

  it("points at the lead byte of a cut sequence, a stray continuation byte, an overlong form and a surrogate", () => {
    expect(firstInvalidUtf8Byte(Buffer.from("abc"))).toBe(-1)
    expect(firstInvalidUtf8Byte(Buffer.from("Bârlad", "utf8"))).toBe(-1)
    expect(firstInvalidUtf8Byte(Uint8Array.from([0x61, 0xe3, 0x72]))).toBe(1) // ă of Windows-1250 before "r"
    expect(firstInvalidUtf8Byte(Uint8Array.from([0x61, 0x62, 0xba]))).toBe(2) // ş of Windows-1250
    expect(firstInvalidUtf8Byte(Uint8Array.from([0xc0, 0x80]))).toBe(0)
    expect(firstInvalidUtf8Byte(Uint8Array.from([0x20, 0xed, 0xa0, 0x80]))).toBe(1)
    expect(firstInvalidUtf8Byte(Uint8Array.from([0xe2, 0x82]))).toBe(0)
  })
})

describe("decodeFile", () => {
  const windows1250 = toWindows1250("source,title\nx,Servicii de proiectare pentru şcoala din Bârlad\n")

  it("refuses bytes that are not UTF-8 by default, naming the first one, its offset and line, and --encoding windows-1250", () => {
    expect(refusal(windows1250)).toBe(
      `not UTF-8: byte 0xBA (byte offset ${windows1250.indexOf(0xba)}, line 2) is not valid UTF-8; if it is Windows-1250 (a SEAP CSV saved by Excel on a Romanian Windows) pass --encoding windows-1250, or convert it to UTF-8`
    )
    expect(refusal(windows1250, "utf-8")).toMatch(/^not UTF-8: byte 0xBA/)
  })

  it("reads them in the encoding given", () => {
    expect(decoded(windows1250, "windows-1250")).toEqual({
      text: "source,title\nx,Servicii de proiectare pentru şcoala din Bârlad\n",
      encoding: "windows-1250",
      chosenBy: "option"
    })
    expect(decoded(windows1250, "iso-8859-2").text).toContain("şcoala din Bârlad")
  })

  it("skips a UTF-8 byte order mark", () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"title":"Școală"}')])
    expect(decoded(withBom)).toEqual({ text: '{"title":"Școală"}', encoding: "utf-8", chosenBy: "default" })
  })

  it("refuses a single-byte encoding for a file whose bytes are UTF-8 (a byte order mark, or valid UTF-8 beyond ASCII)", () => {
    expect(refusal(Buffer.from("titlu,școală"), "windows-1250")).toBe(
      'not windows-1250: its non-ASCII text is valid UTF-8, so it is UTF-8 (read as windows-1250, its first non-ASCII character "ș", byte offset 6, line 1, would become "Č™"): drop --encoding windows-1250'
    )
    expect(refusal(Buffer.from("titlu,școală"), "iso-8859-2")).toMatch(/would become "Č\\u0099"\): drop --encoding/)
    expect(refusal(Buffer.from("\uFEFFtitlu", "utf8"), "iso-8859-2")).toBe(
      "not iso-8859-2: it starts with a UTF-8 byte order mark, so it is UTF-8: drop --encoding iso-8859-2"
    )
    // ASCII reads the same in all three.
    expect(decoded(Buffer.from("plain ascii"), "windows-1250").text).toBe("plain ascii")
  })

  describe("an XML file's declared encoding", () => {
    const tedXml = fixture("ted-xml/ro-f03-award.synthetic.xml")
    const declaring = (label: string) => tedXml.replace('encoding="UTF-8"', `encoding="${label}"`)

    it("is honoured without --encoding (TextDecoder's labels: cp1250 is windows-1250)", () => {
      for (const label of ["windows-1250", "cp1250", "WINDOWS-1250"]) {
        const file = toWindows1250(declaring(label))
        expect(decoded(file)).toMatchObject({ encoding: "windows-1250", chosenBy: "xml-declaration" })
        expect(decoded(file).text).toBe(declaring(label))
      }
      expect(decoded(Buffer.from(tedXml))).toMatchObject({ encoding: "utf-8", chosenBy: "xml-declaration" })
    })

    it("refuses bytes that contradict it, saying so", () => {
      expect(refusal(toWindows1250(tedXml))).toMatch(
        /^not UTF-8 as its XML declaration says: byte 0xBA \(byte offset \d+, line \d+\) is not valid UTF-8; .*--encoding windows-1250/
      )
      expect(refusal(Buffer.from(declaring("windows-1250")))).toMatch(
        /^not windows-1250 as its XML declaration says: its non-ASCII text is valid UTF-8.*: pass --encoding utf-8, or correct its XML declaration$/
      )
    })

    it("is refused when it names an encoding the import does not read", () => {
      expect(refusal(Buffer.from(declaring("ISO-8859-1")))).toBe(
        'its XML declaration names encoding "ISO-8859-1", which the import does not read: pass --encoding utf-8|windows-1250|iso-8859-2 (the one its bytes are in), or convert it to UTF-8'
      )
    })

    it("gives way to --encoding, which names what the bytes are", () => {
      expect(decoded(Buffer.from(declaring("windows-1250")), "utf-8")).toMatchObject({
        text: declaring("windows-1250"),
        chosenBy: "option"
      })
      expect(decoded(toWindows1250(tedXml), "windows-1250").text).toBe(tedXml)
    })
  })
})
