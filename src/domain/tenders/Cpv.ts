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

/** "NNNNNNNN", "NNNNNNNN-D", "NNNNNNNN - D", " NNNN NNNN-D " → "NNNNNNNN-D"; a reason otherwise. */
export const normalizeCpvCode = (catalog: CpvCatalog, input: string): Either.Either<string, string> => {
  const compact = input.replace(/\s+/g, "")
  const match = /^([0-9]{8})(?:-([0-9]))?$/.exec(compact)
  if (match === null) return Either.left(`malformed CPV code "${input}"`)
  const canonical = catalog.get(match[1]!)
  if (canonical === undefined) return Either.left(`unknown CPV code "${input}"`)
  if (match[2] !== undefined && canonical !== `${match[1]}-${match[2]}`) {
    return Either.left(`wrong check digit in CPV code "${input}" (expected ${canonical})`)
  }
  return Either.right(canonical)
}
