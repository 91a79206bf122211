import { isNumber, workAndProjectStems } from "./Text.js"

/*
 * The titles of the contracts a company won, indexed once per profile for the text route
 * (WonTitles.ts): which awards' titles have a word, and what it weighs there.
 */

/**
 * What a word found only in the name of the project a contract was for weighs in its title's match
 * (model tsm-1.8.0), against 1 for a word of the work. A title names the work and, often, the
 * project ("Servicii de publicitate … a proiectului „Dotarea cu mobilier a școlii …”"): the work is
 * what the firm does; the project is whom it did it for, which says something (the next lot, the
 * follow-up of the same project, often go to the same firm) but less, and projects' names are long
 * and alike ("Renovare energetică …", "Dotarea cu mobilier …"), so at full weight they outweighed the
 * work: a design verifier's contract read more like another trade's tender for a like-named project
 * than like a verification for another project.
 */
export const PROJECT_NAME_WEIGHT = 0.5

/** The won awards (indexes in the company's history) whose title has a word, and what it weighs there. */
export type WonTitleIndex = ReadonlyMap<string, ReadonlyArray<{ readonly award: number; readonly weight: number }>>

/**
 * The company's won titles as an inverted index: each distinct word of a title (numbers left out)
 * → the awards whose title has it, with its weight (1 in the work, PROJECT_NAME_WEIGHT only in the
 * project's name). Built once per profile.
 */
export const wonTitleIndexOf = (history: ReadonlyArray<{ readonly title?: string | undefined }>): WonTitleIndex => {
  const index = new Map<string, Array<{ award: number; weight: number }>>()
  const add = (term: string, award: number, weight: number) => {
    if (isNumber(term)) return
    const awards = index.get(term)
    if (awards === undefined) index.set(term, [{ award, weight }])
    else awards.push({ award, weight })
  }
  history.forEach((award, i) => {
    if (award.title === undefined) return
    const { work, project } = workAndProjectStems(award.title)
    for (const term of work) add(term, i, 1)
    for (const term of project) add(term, i, PROJECT_NAME_WEIGHT)
  })
  return index
}
