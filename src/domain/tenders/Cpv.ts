import { Either } from "effect"

/**
 * The CPV 2008 table as a lookup from the 8-digit code to its canonical `NNNNNNNN-D` form. The
 * check digit cannot be computed reliably (the 3-7-1 mod-10 rule fails for ~5.6% of official codes),
 * so a code is valid only if the table knows it, with exactly that check digit when one is given.
 */
export type CpvCatalog = ReadonlyMap<string, string>

export const makeCpvCatalog = (rows: Iterable<{ readonly code_full: string }>): CpvCatalog => {
  const catalog = new Map<string, string>()
  for (const { code_full } of rows) catalog.set(code_full.slice(0, 8), code_full)
  return catalog
}

/** Why a CPV code was refused; each caller words it for its audience. */
export type CpvCodeProblem =
  | { readonly _tag: "Malformed"; readonly input: string }
  | { readonly _tag: "Unknown"; readonly input: string }
  | { readonly _tag: "WrongCheckDigit"; readonly input: string; readonly canonical: string }

const CPV_SHAPE = /^([0-9]{8})(?:-([0-9]))?$/

/** The 8 digits the table is keyed by, or null when the input is not shaped like a CPV code. */
export const cpvCatalogKey = (input: string): string | null => CPV_SHAPE.exec(input.replace(/\s+/g, ""))?.[1] ?? null

/**
 * The rule: "NNNNNNNN", "NNNNNNNN-D", "NNNNNNNN - D", " NNNN NNNN-D " → "NNNNNNNN-D" when the
 * table knows the code (with that check digit, when one is given); the problem otherwise.
 */
export const checkCpvCode = (catalog: CpvCatalog, input: string): Either.Either<string, CpvCodeProblem> => {
  const match = CPV_SHAPE.exec(input.replace(/\s+/g, ""))
  if (match === null) return Either.left({ _tag: "Malformed", input })
  const canonical = catalog.get(match[1]!)
  if (canonical === undefined) return Either.left({ _tag: "Unknown", input })
  if (match[2] !== undefined && canonical !== `${match[1]}-${match[2]}`) {
    return Either.left({ _tag: "WrongCheckDigit", input, canonical })
  }
  return Either.right(canonical)
}

/** The import's wording of a refused code (it lands in skip reasons). */
const importReason = (problem: CpvCodeProblem): string => {
  switch (problem._tag) {
    case "Malformed":
      return `malformed CPV code "${problem.input}"`
    case "Unknown":
      return `unknown CPV code "${problem.input}"`
    case "WrongCheckDigit":
      return `wrong check digit in CPV code "${problem.input}" (expected ${problem.canonical})`
  }
}

/** `checkCpvCode` with the refusal as the import's reason text. */
export const normalizeCpvCode = (catalog: CpvCatalog, input: string): Either.Either<string, string> =>
  Either.mapLeft(checkCpvCode(catalog, input), importReason)
