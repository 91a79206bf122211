import type { CpvLevel } from "../CpvMatch.js"

/**
 * A sentence with named placeholders ("{which} lies in your watched {level} {digits}"), filled by
 * `fill`. The type names its placeholders, so a call that forgets one does not compile; a test
 * checks that every language's template has the same ones.
 */
export type Template<Names extends string = never> = string & { readonly placeholders?: Names }

/** Two forms of a counted phrase: for 1 and for any other number. */
export interface Counted<Names extends string> {
  readonly one: Template<Names>
  readonly other: Template<Names | "count">
}

/** Two forms of a phrase about a count: when it is 0 and when it is more. */
export interface NoneOrSome<Names extends string> {
  readonly none: Template<Names>
  readonly some: Template<Names | "count">
}

/** Every word of the reasons in one language: data only, phrased by Reasons.ts. */
export interface Phrasebook {
  readonly separators: {
    /** Between the items of a list ("marcaje, rutiere"). */
    readonly list: string
    /** Between the parts of one reason ("keywords found: …; in the description: …"). */
    readonly clause: string
  }
  /** Written between the whole and the decimals of an amount ("1.2", "1,2"). */
  readonly decimalMark: string
  /** An amount in millions of RON; the bounds of a range are written in the range's own template. */
  readonly millions: Template<"amount">
  readonly cpvLevels: { readonly [level in CpvLevel]: string }
  readonly cpv: {
    readonly noCodes: Template
    readonly noneNear: Template
    readonly mainCode: Template<"code">
    readonly additionalCode: Template<"code">
    /** The tender code lies inside a watched code (`digits`, its significant digits). */
    readonly inWatched: Template<"which" | "level" | "digits">
    readonly inWon: Template<"which" | "level" | "digits">
    /** The tender code shares the leading digits `shared` with a watched code. */
    readonly sharesWatched: Template<"which" | "level" | "shared" | "code">
    readonly sharesWon: Template<"which" | "level" | "shared" | "code">
    /**
     * A learned affinity (CpvAffinity.ts): firms that win the profile code's class (`won`, 8 digits)
     * also win the tender code's (`code`): `common` of the `suppliers` of the profile code's class.
     */
    readonly affinity: Template<"won" | "code" | "common" | "suppliers">
    /**
     * The text route (WonTitles.ts): the tender reads like a contract the company won, coded `code`
     * (as written), titled `title` (cut short); `words`: the tender's words its title shares.
     */
    readonly wonTitle: Template<"code" | "title" | "words">
    /**
     * The stated-text route (StatedText.ts): the tender reads like the company's own description
     * (`description`), or its description and watchlist keywords when it has keywords
     * (`withKeywords`); `words`: the tender's words they share.
     */
    readonly stated: { readonly description: Template<"words">; readonly withKeywords: Template<"words"> }
    /** Feedback: tenders of the tender's CPV class (`class`, 4 digits) the user marked, by verdict. */
    readonly markedRelevant: Counted<"class">
    readonly markedNotRelevant: Counted<"class">
  }
  readonly keyword: {
    readonly none: Template
    readonly notFound: Template
    readonly found: Template<"list">
    readonly alsoInDescription: Template<"list">
    readonly onlyInDescription: Template<"list">
  }
  readonly value: {
    readonly noRange: Template
    /** Bounds in millions of RON. */
    readonly range: Template<"min" | "max">
    readonly minimum: Template<"min">
    readonly maximum: Template<"max">
    readonly noValue: Template<"range">
    readonly below: Template<"amount" | "range">
    readonly above: Template<"amount" | "range">
    readonly inside: Template<"amount" | "range">
  }
  readonly historical: {
    readonly noFiscalCode: Template
    readonly noAwards: Template
    readonly won: Template<"contracts" | "fromAuthority" | "inClass">
    readonly contracts: Counted<never>
    readonly fromAuthority: NoneOrSome<never>
    readonly inClass: NoneOrSome<"class">
    /** Won awards outside the tender's class counted by a title the tender matches (WonTitles.ts), a clause after the rest. */
    readonly byTitle: Counted<never>
    /** How near the tender's county is to the company's (Place.ts), a clause after the rest. */
    readonly place: {
      readonly same: Template<"county">
      readonly neighbour: Template<"county" | "counties">
      readonly away: Template<"county" | "counties" | "distance">
      readonly partly: Template<"clause" | "percent">
      /** The company's nearest counties as it set them. */
      readonly set: Counted<"list">
      /** The company's nearest counties as inferred from its awards. */
      readonly awards: Counted<"list">
    }
  }
  readonly semantic: {
    readonly noProfile: Template
    readonly noneShared: Template
    readonly description: Template<"words">
    readonly keywords: Template<"words">
    readonly awardTitles: Template<"words">
  }
}

const PLACEHOLDER = /\{(\w+)\}/g

/** The names of a template's placeholders, in order. */
export const placeholdersOf = (template: string): ReadonlyArray<string> =>
  Array.from(template.matchAll(PLACEHOLDER), (match) => match[1]!)

/** A template with its placeholders filled in; a placeholder without a value stays as written. */
export const fill = <Names extends string>(
  template: Template<Names>,
  values: { readonly [name in Names]: string | number }
): string =>
  template.replace(PLACEHOLDER, (placeholder, name: string) => {
    const value = (values as Readonly<Record<string, string | number>>)[name]
    return value === undefined ? placeholder : String(value)
  })
