import { type Schedule, Schema } from "effect"
import { JobRetrySchedule } from "../../domain/Retries.js"

/**
 * One kind of background work, declared once beside the capability that consumes it and used by
 * both its producer (`JobQueue.enqueue`) and its consumer (`JobRunner`): the name stored in
 * `jobs.kind`, the payload's Schema (encoded on enqueue, decoded on claim), how many claims a job
 * gets before it is dead-lettered (a worker that dies mid-job used one), and the delays between
 * failed attempts, stepped from a Schedule so that a retry is a stored run time (src/domain/Retries).
 */
export interface JobKind<A, I = A> {
  readonly name: string
  readonly payload: Schema.Schema<A, I>
  readonly maxAttempts: number
  readonly retry: Schedule.Schedule<unknown, unknown>
}

export const jobKind = <A, I>(
  name: string,
  payload: Schema.Schema<A, I>,
  options: { readonly maxAttempts?: number; readonly retry?: Schedule.Schedule<unknown, unknown> } = {}
): JobKind<A, I> => ({
  name,
  payload,
  maxAttempts: options.maxAttempts ?? 5,
  retry: options.retry ?? JobRetrySchedule
})

/** A kind whose payload is any JSON value: for tests and tools that drive the queue directly. */
export const untypedJobKind = (name: string, options?: Parameters<typeof jobKind>[2]) =>
  jobKind(name, Schema.Unknown, options)
