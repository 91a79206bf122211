/**
 * What a format parser yields per record: a native record (still to be validated and normalised)
 * or the reason it was skipped. `ref` locates the record for the operator: "line 12", "record 3",
 * "notice 2020/S 064-154324".
 */
export type ParsedItem =
  | { readonly _tag: "Parsed"; readonly ref: string; readonly record: unknown }
  | { readonly _tag: "Skipped"; readonly ref: string; readonly reason: string }

export const parsed = (ref: string, record: unknown): ParsedItem => ({ _tag: "Parsed", ref, record })
export const skipped = (ref: string, reason: string): ParsedItem => ({ _tag: "Skipped", ref, reason })

/** The message of anything thrown by a third-party parser, on one line. */
export const errorMessage = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").trim()
