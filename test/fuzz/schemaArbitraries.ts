import fc from "fast-check"
import type { JsonSchema } from "./routes.js"

/**
 * fast-check arbitraries from the JSON Schema subset the OpenAPI generator writes (type, enum,
 * pattern, format, min/max, lengths, items, properties/required, anyOf, $ref): `valid` values that
 * follow the schema, and `nearValid` ones, a valid value with one thing wrong (a field dropped, of the
 * wrong type, out of range, too long, with hostile Unicode, an unknown field added).
 */

/** A JSON fragment written as is: numbers JSON.stringify cannot produce (1e309, 400 digits), or raw keys. */
export class RawJson {
  constructor(readonly text: string) {}
  toJSON() {
    return `<raw ${this.text.slice(0, 40)}>`
  }
}

/** JSON text of a generated value, RawJson fragments spliced in verbatim. */
export const toJsonText = (value: unknown): string =>
  value instanceof RawJson
    ? value.text
    : Array.isArray(value)
      ? `[${value.map(toJsonText).join(",")}]`
      : value !== null && typeof value === "object"
        ? `{${Object.entries(value)
            .map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`)
            .join(",")}}`
        : (JSON.stringify(value) ?? "null")

export const HUGE_LENGTH = 100_000

/** Strings that have broken parsers before: control characters, lone surrogates, bidi, combining marks. */
export const NASTY_STRINGS: ReadonlyArray<string> = [
  "",
  " ",
  "\t\r\n",
  "\u0000",
  "a\u0000b",
  "\u0001\u0008\u001b\u007f",
  "\ud800",
  "a\udfffb",
  "\u202edrum\u202c",
  "\u200b\ufeff",
  "😀🚧",
  "e\u0301\u0301\u0301",
  "İıſK",
  "ăâîșț ĂÂÎȘȚ",
  "'; DROP TABLE tenants; --",
  "%00",
  "%",
  "../../etc/passwd",
  "null",
  "__proto__",
  "<script>alert(1)</script>",
  "$" + "{jndi:x}",
  "\\",
  '"',
  "{}",
  "[]",
  "0",
  "-1",
  "1e309",
  "NaN"
]

const NASTY_NUMBERS: ReadonlyArray<number> = [
  -1,
  0,
  -0,
  0.5,
  1.5,
  Number.MIN_VALUE,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53,
  2 ** 53 + 2,
  2 ** 63,
  1e16,
  1e308,
  -1e308
]

/** Numbers only raw JSON text can carry (JSON.parse gives Infinity, a rounded value or -0). */
const RAW_NUMBERS: ReadonlyArray<string> = [
  "1e309",
  "-1e309",
  "9999999999999999999",
  `1${"0".repeat(400)}`,
  "-0",
  "1E2",
  "0.00000000000000000000000001",
  "1.0"
]

export interface SchemaArbitraries {
  readonly valid: (schema: JsonSchema) => fc.Arbitrary<unknown>
  readonly nearValid: (schema: JsonSchema) => fc.Arbitrary<unknown>
  /** A value of the wrong type, range or size for `schema`, or hostile text. */
  readonly wrong: (schema: JsonSchema) => fc.Arbitrary<unknown>
}

export interface Hints {
  /** Values for `format: uuid` (known ids, so valid requests reach past the lookups). */
  readonly uuid: fc.Arbitrary<string>
}

const unicodeText = (minLength: number, maxLength: number) =>
  fc.oneof(
    fc.string({ minLength, maxLength, unit: "grapheme" }),
    fc.string({ minLength, maxLength, unit: "binary" }),
    fc.string({ minLength, maxLength })
  )

const isoDate = fc
  .date({ min: new Date("2024-01-01T00:00:00Z"), max: new Date("2027-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10))

export const schemaArbitraries = (resolve: (schema: JsonSchema) => JsonSchema, hints: Hints): SchemaArbitraries => {
  const typeOf = (s: JsonSchema): string | undefined =>
    s.type ?? (s.enum !== undefined ? typeof s.enum[0] : s.properties !== undefined ? "object" : undefined)

  const validString = (s: JsonSchema): fc.Arbitrary<string> => {
    if (s.format === "uuid") return hints.uuid
    if (s.format === "uri")
      return fc.webUrl({ validSchemes: ["https"], withQueryParameters: true, withFragments: true })
    if (s.format === "date") return isoDate
    const min = s.minLength ?? 0
    const max = s.maxLength ?? Math.max(min, 40)
    const text = unicodeText(min, Math.min(max, Math.max(min, 40) + 8))
    // No filters (a rarely met one makes generation spin): a text that misses the pattern falls back
    // to one generated from it, and lengths are cut or padded into range.
    const pattern = typeof s.pattern === "string" ? new RegExp(s.pattern) : undefined
    const matching =
      pattern === undefined
        ? text
        : fc.tuple(text, fc.stringMatching(pattern)).map(([free, generated]) => (pattern.test(free) ? free : generated))
    return matching.map((x) => x.slice(0, max).padEnd(min, "x"))
  }

  const validNumber = (s: JsonSchema, integer: boolean): fc.Arbitrary<number> => {
    const low = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1e6)
    const high = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 2 : 1e6)
    const ints = fc.maxSafeInteger().map((n) => Math.min(Math.max(n, Math.ceil(low)), Math.floor(high)))
    if (integer) return ints
    return fc.oneof(ints, fc.double({ min: low, max: high, noNaN: true, noDefaultInfinity: true }))
  }

  const valid = (schema0: JsonSchema): fc.Arbitrary<unknown> => {
    const s = resolve(schema0)
    const members = s.anyOf ?? s.oneOf
    if (members !== undefined) return fc.oneof(...members.map((m: JsonSchema) => valid(m)))
    if (s.enum !== undefined) return fc.constantFrom(...s.enum)
    switch (typeOf(s)) {
      case "string":
        return validString(s)
      case "integer":
        return validNumber(s, true)
      case "number":
        return validNumber(s, false)
      case "boolean":
        return fc.boolean()
      case "null":
        return fc.constant(null)
      case "array":
        return fc.array(valid(s.items ?? {}), {
          minLength: s.minItems ?? 0,
          maxLength: Math.min(s.maxItems ?? 5, Math.max(s.minItems ?? 0, 5))
        })
      case "object": {
        const properties: Record<string, JsonSchema> = s.properties ?? {}
        return fc.record(Object.fromEntries(Object.entries(properties).map(([k, p]) => [k, valid(p)])), {
          requiredKeys: (s.required ?? []).filter((k: string) => k in properties)
        })
      }
      default:
        return fc.jsonValue({ maxDepth: 2 })
    }
  }

  const wrongForType = (s: JsonSchema): fc.Arbitrary<unknown> => {
    switch (typeOf(s)) {
      case "string": {
        const max = s.maxLength ?? HUGE_LENGTH
        return fc.oneof(
          fc.constantFrom(...NASTY_STRINGS),
          fc.constant("x".repeat(Math.min(max + 1, HUGE_LENGTH))),
          fc.constant("é".repeat(HUGE_LENGTH)),
          fc.constant("x".repeat(Math.max((s.minLength ?? 1) - 1, 0))),
          // A valid value with something appended or changed.
          validString(s).map((x) => `${x}\u0000`),
          validString(s).map((x) => ` ${x.toUpperCase()} `),
          validString(s).map((x) => `{${x}}`),
          unicodeText(0, 60),
          fc.constantFrom(...RAW_NUMBERS).map((n) => new RawJson(n))
        )
      }
      case "integer":
      case "number": {
        const edges = [
          s.minimum !== undefined ? [s.minimum - 1, s.minimum - 0.5] : [],
          s.maximum !== undefined ? [s.maximum + 1, s.maximum + 0.5] : [],
          s.exclusiveMaximum !== undefined ? [s.exclusiveMaximum] : [],
          s.exclusiveMinimum !== undefined ? [s.exclusiveMinimum] : [],
          typeOf(s) === "integer" ? [0.5, 1.000001] : []
        ].flat()
        return fc.oneof(
          fc.constantFrom(...NASTY_NUMBERS, ...edges),
          fc.constantFrom(...RAW_NUMBERS).map((n) => new RawJson(n)),
          fc.double(),
          validNumber(s, false).map(String)
        )
      }
      case "boolean":
        return fc.constantFrom("true", "false", 1, 0, "yes")
      case "array":
        return fc.oneof(
          fc.constant([]),
          valid(s.items ?? {}).map((item) => Array((s.maxItems ?? 10_000) + 1).fill(item)),
          fc.array(wrong(s.items ?? {}), { minLength: 1, maxLength: 3 }),
          valid(s.items ?? {}).map((item) => [item, item]),
          valid(s.items ?? {})
        )
      case "object":
        return fc.oneof(fc.constant({}), fc.array(valid(s), { minLength: 1, maxLength: 2 }))
      default:
        return fc.constantFrom(...NASTY_STRINGS)
    }
  }

  const wrong = (schema0: JsonSchema): fc.Arbitrary<unknown> => {
    const s = resolve(schema0)
    const members: ReadonlyArray<JsonSchema> | undefined = s.anyOf ?? s.oneOf
    const specific =
      members !== undefined
        ? fc.oneof(
            ...members
              .map((m) => resolve(m))
              .filter((m) => m.type !== "null")
              .map(wrongForType)
          )
        : s.enum !== undefined
          ? fc.oneof(
              fc.constantFrom(...s.enum).map((e: unknown) => (typeof e === "string" ? e.toLowerCase() : String(e))),
              fc.constantFrom(...s.enum).map((e: unknown) => `${String(e)} `),
              fc.constantFrom(...NASTY_STRINGS)
            )
          : wrongForType(s)
    return fc.oneof(
      { weight: 1, arbitrary: fc.constantFrom(null, true, 0, -1, 1.5, "", "x", [], {}, [null], { a: 1 }) },
      { weight: 3, arbitrary: specific }
    )
  }

  /** One thing wrong inside a valid value (recursing into objects and arrays). */
  const mutate = (schema0: JsonSchema, value: unknown): fc.Arbitrary<unknown> => {
    const s = resolve(schema0)
    if (typeOf(s) === "object" && value !== null && typeof value === "object" && !Array.isArray(value)) {
      const record = value as Record<string, unknown>
      const properties: Record<string, JsonSchema> = s.properties ?? {}
      const names = Object.keys(properties)
      const present = Object.keys(record)
      const options: Array<fc.Arbitrary<unknown>> = [
        // An unknown field, or a known one under a prototype-polluting key.
        fc
          .tuple(fc.constantFrom("id", "tenantId", "unknown", "active", "constructor"), fc.jsonValue({ maxDepth: 1 }))
          .map(([k, v]) => ({ ...record, [k]: v })),
        fc.constant(new RawJson(`{"__proto__": ${toJsonText(record)}}`)),
        // The same key twice, the second wrong (JSON.parse keeps the last).
        ...(present.length > 0
          ? [
              fc
                .constantFrom(...present)
                .chain((k) =>
                  wrong(properties[k] ?? {}).map(
                    (w) => new RawJson(`${toJsonText(record).slice(0, -1)},${JSON.stringify(k)}:${toJsonText(w)}}`)
                  )
                )
            ]
          : []),
        wrong(s)
      ]
      if (present.length > 0) {
        options.push(
          fc.constantFrom(...present).map((k) => Object.fromEntries(Object.entries(record).filter(([x]) => x !== k)))
        )
      }
      if (names.length > 0) {
        options.push(
          fc
            .constantFrom(...names)
            .chain((k) =>
              (k in record
                ? fc.oneof(mutate(properties[k]!, record[k]), wrong(properties[k]!))
                : wrong(properties[k]!)
              ).map((v) => ({ ...record, [k]: v }))
            )
        )
      }
      return fc.oneof(...options)
    }
    if (typeOf(s) === "array" && Array.isArray(value) && value.length > 0) {
      return fc.oneof(
        fc
          .nat({ max: value.length - 1 })
          .chain((i) => mutate(s.items ?? {}, value[i]).map((v) => value.map((x, j) => (j === i ? v : x)))),
        wrong(s)
      )
    }
    return wrong(s)
  }

  const nearValid = (schema: JsonSchema) => valid(schema).chain((value) => mutate(schema, value))

  return { valid, nearValid, wrong }
}
