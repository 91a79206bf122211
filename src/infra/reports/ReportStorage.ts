import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { clockNow } from "../db/ClockNow.js"

/**
 * Where finished PDFs are kept. The database implementation stores them in `report_files`, so a PDF
 * is written in the transaction that completes its job (and charges it), never one without the other.
 */
export class ReportStorage extends Context.Tag("ReportStorage")<
  ReportStorage,
  {
    /** Joins the caller's transaction. */
    readonly put: (jobId: string, pdf: Uint8Array) => Effect.Effect<void>
    readonly get: (jobId: string) => Effect.Effect<Option.Option<Uint8Array>>
    readonly remove: (jobIds: ReadonlyArray<string>) => Effect.Effect<void>
  }
>() {}

export const DatabaseReportStorageLive = Layer.effect(
  ReportStorage,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const findPdf = SqlSchema.findOne({
      Request: Schema.String,
      // bytea arrives as a Buffer (a Uint8Array).
      Result: Schema.Struct({ pdf: Schema.Uint8ArrayFromSelf }),
      execute: (jobId) => sql`SELECT pdf FROM report_files WHERE job_id = ${jobId}`
    })
    return {
      put: (jobId, pdf) =>
        Effect.flatMap(
          clockNow,
          (now) => sql`
            INSERT INTO report_files (job_id, pdf, byte_size, created_at)
            VALUES (${jobId}, ${Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength)}, ${pdf.byteLength}, ${now})
            ON CONFLICT (job_id) DO UPDATE SET pdf = EXCLUDED.pdf, byte_size = EXCLUDED.byte_size`
        ).pipe(Effect.asVoid, Effect.orDie),
      get: (jobId) => findPdf(jobId).pipe(Effect.map(Option.map((row) => new Uint8Array(row.pdf))), Effect.orDie),
      remove: (jobIds) =>
        jobIds.length === 0
          ? Effect.void
          : sql`DELETE FROM report_files WHERE job_id = ANY(${jobIds})`.pipe(Effect.asVoid, Effect.orDie)
    }
  })
)
