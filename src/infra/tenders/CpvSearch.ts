import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"

export const CpvMatch = Schema.Struct({
  code: Schema.String,
  label_ro: Schema.String,
  label_en: Schema.String,
  level: Schema.Literal("division", "group", "class", "category", "subcategory")
})
export interface CpvMatch extends Schema.Schema.Type<typeof CpvMatch> {}

/**
 * Search of the `cpv_codes` table for the watchlist editor: every word of the query in the Romanian
 * or the English label (diacritics and case folded on both sides), or digits at the start of the
 * code. ~9,500 rows: a scan costs a few milliseconds, so no index.
 */
export class CpvSearch extends Context.Tag("CpvSearch")<
  CpvSearch,
  { readonly search: (input: { readonly q: string; readonly limit: number }) => Effect.Effect<ReadonlyArray<CpvMatch>> }
>() {}

/** Lower case without diacritics (Romanian ones included, both comma-below and cedilla forms). */
export const foldText = (text: string) =>
  text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()

/** The same folding in SQL, for the labels. */
const FOLD_FROM = "ăâîșțşţáàäéèëíìïóòöúùüçñ"
const FOLD_TO = "aaiststaaaeeeiiiooouuucn"

/** LIKE metacharacters of a word, escaped. */
const likeEscape = (word: string) => word.replace(/[\\%_]/g, (c) => `\\${c}`)

export const CpvSearchLive = Layer.effect(
  CpvSearch,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const folded = (column: string) => sql.literal(`translate(lower(${column}), '${FOLD_FROM}', '${FOLD_TO}')`)

    const matches = SqlSchema.findAll({
      Request: Schema.Struct({
        /** Folded words of the query, at least one. */
        words: Schema.Array(Schema.String),
        /** 2 to 8 leading digits of a code, when the query is one; else the words search the labels. */
        codePrefix: Schema.NullOr(Schema.String),
        limit: Schema.Number
      }),
      Result: CpvMatch,
      execute: ({ words, codePrefix, limit }) => {
        const phrase = likeEscape(words.join(" "))
        const conditions =
          codePrefix !== null
            ? sql`c.code LIKE ${`${codePrefix}%`}`
            : sql.and(
                words.map(
                  (word) =>
                    sql`(${folded("c.label_ro")} LIKE ${`%${likeEscape(word)}%`} OR ${folded("c.label_en")} LIKE ${`%${likeEscape(word)}%`})`
                )
              )
        return sql`
          SELECT rtrim(c.code_full) AS code, c.label_ro, c.label_en, c.level
          FROM cpv_codes c
          WHERE ${conditions}
          ORDER BY
            (${folded("c.label_ro")} LIKE ${`${phrase}%`} OR ${folded("c.label_en")} LIKE ${`${phrase}%`}) DESC,
            CASE c.level WHEN 'division' THEN 0 WHEN 'group' THEN 1 WHEN 'class' THEN 2 WHEN 'category' THEN 3 ELSE 4 END,
            c.code
          LIMIT ${limit}`
      }
    })

    const search = (input: { readonly q: string; readonly limit: number }) => {
      const words = foldText(input.q)
        .split(/[^\p{L}\p{N}]+/u)
        .filter((word) => word.length > 0)
        .slice(0, 10)
      // `45233120-6` or `452331206` names the code (its 9th digit is the check digit); fewer digits, a prefix.
      const codeDigits = input.q.replace(/[\s-]/g, "").slice(0, 8)
      const byCode = /^\d{2,8}$/.test(codeDigits) && /^[\d\s-]+$/.test(input.q)
      if (words.length === 0) return Effect.succeed([])
      return matches({ words, codePrefix: byCode ? codeDigits : null, limit: input.limit }).pipe(Effect.orDie)
    }
    return { search }
  })
)
