import { Either } from "effect"

/**
 * What a format parser yields per record: a native record (still to be validated and normalised)
 * or the reason it was skipped. `ref` locates the record for the operator: "line 12", "record 3",
 * "notice 2020/S 064-154324". `cancelled`: the notice says its procedure was cancelled (an eForms
 * change notice "Notice cancelled"), so its tender is closed; not a field of the record, which the
 * native formats share.
 */
export type ParsedItem =
  | { readonly _tag: "Parsed"; readonly ref: string; readonly record: unknown; readonly cancelled?: boolean }
  | { readonly _tag: "Skipped"; readonly ref: string; readonly reason: string }

export const parsed = (ref: string, record: unknown, cancelled = false): ParsedItem =>
  cancelled ? { _tag: "Parsed", ref, record, cancelled } : { _tag: "Parsed", ref, record }
export const skipped = (ref: string, reason: string): ParsedItem => ({ _tag: "Skipped", ref, reason })

/** The message of anything thrown by a third-party parser, on one line. */
export const errorMessage = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").trim()

/** The value of a JSON text, or the skip (at `ref`: "file", "line 3") of a text that is not JSON. */
export const parseJson = (ref: string, text: string): Either.Either<unknown, ParsedItem> =>
  Either.try({
    try: () => JSON.parse(text) as unknown,
    catch: (error) => skipped(ref, `not valid JSON: ${errorMessage(error)}`)
  })
