import type { Phrasebook } from "./Phrasebook.js"

/** The reasons in English: the key API's language (spec 2.3). */
export const en: Phrasebook = {
  separators: { list: ", ", clause: "; " },
  decimalMark: ".",
  millions: "{amount} M RON",
  cpvLevels: {
    division: "division",
    group: "group",
    class: "class",
    category: "category",
    subcategory: "subcategory"
  },
  cpv: {
    noCodes: "no CPV codes to compare: no watchlist codes and no awards won",
    noneNear: "no CPV code of this tender is near your watched codes or the codes of contracts you won",
    mainCode: "main CPV {code}",
    additionalCode: "additional CPV {code}",
    inWatched: "{which} lies in your watched {level} {digits}",
    inWon: "{which} lies in {level} {digits} of a contract you won",
    sharesWatched: "{which} shares {level} {shared} with your watched code {code}",
    sharesWon: "{which} shares {level} {shared} with a contract you won, in code {code}",
    affinity: "firms that win {won} also win {code}: {common} of {suppliers}",
    wonTitle: 'the tender reads like a contract you won in {code}, "{title}": both say {words}',
    stated: {
      description: "the tender reads like your description: both say {words}",
      withKeywords: "the tender reads like your description and keywords: both say {words}"
    },
    markedRelevant: {
      one: "you marked 1 tender of CPV class {class} relevant",
      other: "you marked {count} tenders of CPV class {class} relevant"
    },
    markedNotRelevant: {
      one: "you marked 1 tender of CPV class {class} not relevant",
      other: "you marked {count} tenders of CPV class {class} not relevant"
    }
  },
  keyword: {
    none: "no watchlist keywords to look for",
    notFound: "none of your watchlist keywords occurs in the tender",
    found: "keywords found: {list}",
    alsoInDescription: "in the description: {list}",
    onlyInDescription: "keywords found in the description: {list}"
  },
  value: {
    noRange: "no value range in your watchlists",
    range: "your range {min}-{max} M RON",
    minimum: "your minimum {min} M RON",
    maximum: "your maximum {max} M RON",
    noValue: "the tender has no estimated value to compare with {range}",
    below: "{amount} below {range}",
    above: "{amount} above {range}",
    inside: "{amount} inside {range}"
  },
  historical: {
    noFiscalCode: "no fiscal code, so no award history to compare",
    noAwards: "no award notice names your fiscal code as winner",
    won: "won {contracts}: {fromAuthority}, {inClass}",
    contracts: { one: "1 contract", other: "{count} contracts" },
    fromAuthority: { none: "none from this authority", some: "{count} from this authority" },
    inClass: { none: "none in class {class}", some: "{count} in class {class}" },
    byTitle: {
      one: "1 contract with a title like this tender's",
      other: "{count} contracts with titles like this tender's"
    },
    place: {
      same: "the tender is in {county}, where you work",
      neighbour: "{county} borders {counties}",
      away: "{county} is {distance} counties from {counties}",
      partly: "{clause} (counted {percent}%: as far as the tender is of your trade)",
      set: { one: "your county {list}", other: "your counties {list}" },
      awards: { one: "{list}, where you won contracts", other: "{list}, where you won contracts" }
    }
  },
  semantic: {
    noProfile: "no description, keywords or won award titles to compare",
    noneShared: "no word of your description, keywords or won award titles occurs in the tender",
    description: "description shares: {words}",
    keywords: "keywords share: {words}",
    awardTitles: "won award titles share: {words}"
  }
}
