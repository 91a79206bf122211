import type { Phrasebook } from "./Phrasebook.js"

/** The reasons in Romanian: the browser app's language (decimal comma: 1,2 mil. RON). */
export const ro: Phrasebook = {
  separators: { list: ", ", clause: "; " },
  decimalMark: ",",
  millions: "{amount} mil. RON",
  cpvLevels: {
    division: "diviziunea",
    group: "grupa",
    class: "clasa",
    category: "categoria",
    subcategory: "subcategoria"
  },
  cpv: {
    noCodes: "niciun cod CPV de comparat: nu urmăriți coduri și nu ați câștigat contracte",
    noneNear:
      "niciun cod CPV al licitației nu este apropiat de codurile urmărite sau de cele ale contractelor câștigate",
    mainCode: "codul CPV principal {code}",
    additionalCode: "codul CPV suplimentar {code}",
    inWatched: "{which} se află în {level} {digits}, pe care o urmăriți",
    inWon: "{which} se află în {level} {digits} a unui contract câștigat",
    sharesWatched: "{which} are în comun {level} {shared} cu codul urmărit {code}",
    sharesWon: "{which} are în comun {level} {shared} cu codul {code} al unui contract câștigat",
    affinity: "firmele care câștigă {won} câștigă și {code}: {common} din {suppliers}",
    wonTitle: "licitația seamănă cu un contract câștigat de dvs. în {code}, „{title}”: ambele spun {words}",
    stated: {
      description: "licitația seamănă cu descrierea dvs.: ambele spun {words}",
      withKeywords: "licitația seamănă cu descrierea și cuvintele cheie ale dvs.: ambele spun {words}"
    },
    markedRelevant: {
      one: "ați marcat o licitație din clasa CPV {class} ca relevantă",
      other: "ați marcat {count} licitații din clasa CPV {class} ca relevante"
    },
    markedNotRelevant: {
      one: "ați marcat o licitație din clasa CPV {class} ca nerelevantă",
      other: "ați marcat {count} licitații din clasa CPV {class} ca nerelevante"
    }
  },
  keyword: {
    none: "nu urmăriți cuvinte cheie",
    notFound: "niciun cuvânt cheie urmărit nu apare în licitație",
    found: "cuvinte cheie găsite: {list}",
    alsoInDescription: "în descriere: {list}",
    onlyInDescription: "cuvinte cheie găsite în descriere: {list}"
  },
  value: {
    noRange: "listele de urmărire nu au un interval de valoare",
    range: "intervalul urmărit {min}-{max} mil. RON",
    minimum: "minimul urmărit de {min} mil. RON",
    maximum: "maximul urmărit de {max} mil. RON",
    noValue: "licitația nu are o valoare estimată de comparat cu {range}",
    below: "{amount}, sub {range}",
    above: "{amount}, peste {range}",
    inside: "{amount}, în {range}"
  },
  historical: {
    noFiscalCode: "fără cod fiscal nu există un istoric de contracte de comparat",
    noAwards: "niciun anunț de atribuire nu vă numește codul fiscal drept câștigător",
    won: "ați câștigat {contracts}: {fromAuthority}, {inClass}",
    contracts: { one: "un contract", other: "{count} contracte" },
    fromAuthority: { none: "niciunul de la această autoritate", some: "{count} de la această autoritate" },
    inClass: { none: "niciunul în clasa {class}", some: "{count} în clasa {class}" },
    byTitle: {
      one: "un contract cu un titlu asemănător acestei licitații",
      other: "{count} contracte cu titluri asemănătoare acestei licitații"
    },
    place: {
      same: "licitația este în {county}, unde lucrați",
      neighbour: "{county} se învecinează cu {counties}",
      away: "{county} este la {distance} județe de {counties}",
      partly: "{clause} (contează {percent}%: cât ține licitația de domeniul dumneavoastră)",
      set: { one: "județul în care lucrați, {list}", other: "județele în care lucrați, {list}" },
      awards: { one: "{list}, unde ați câștigat contracte", other: "{list}, unde ați câștigat contracte" }
    }
  },
  semantic: {
    noProfile: "nicio descriere, niciun cuvânt cheie și niciun titlu de contract câștigat de comparat",
    noneShared:
      "niciun cuvânt din descriere, din cuvintele cheie sau din titlurile contractelor câștigate nu apare în licitație",
    description: "descrierea are în comun: {words}",
    keywords: "cuvintele cheie au în comun: {words}",
    awardTitles: "titlurile contractelor câștigate au în comun: {words}"
  }
}
