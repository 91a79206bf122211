import { Duration, type Schedule, Schema } from "effect"
import { JobRetrySchedule } from "../../domain/Retries.js"

/**
 * One kind of background work, declared once beside the capability that consumes it and used by
 * both its producer (`JobQueue.enqueue`) and its consumer (`JobRunner`): the name stored in
 * `jobs.kind`, the payload's Schema (encoded on enqueue, decoded on claim), how many claims a job
 * gets before it is dead-lettered (a worker that dies mid-job used one), the delays between
 * failed attempts, stepped from a Schedule so that a retry is a stored run time (src/domain/Retries),
 * and how long one attempt may run before the runner fails it (a hung handler would otherwise hold
 * its slot for ever: its heartbeat keeps renewing the lease), and its priority among the kinds of its runner.
 */
export interface JobKind<A, I = A> {
  readonly name: string
  readonly payload: Schema.Schema<A, I>
  readonly maxAttempts: number
  readonly retry: Schedule.Schedule<unknown, unknown>
  readonly timeout: Duration.Duration
  /**
   * Claimed before due jobs of kinds with a lower one (0 unless given): work someone is waiting for
   * on a screen goes ahead of a backlog of bulk work of the same runner.
   */
  readonly priority: number
}

/**
 * An attempt's time limit when its kind names none: far beyond any job of a few hundred tenders,
 * an e-mail or an HTTP call, short enough that a hung one frees its slot within the hour.
 */
const DEFAULT_JOB_TIMEOUT = Duration.minutes(30)

export const jobKind = <A, I>(
  name: string,
  payload: Schema.Schema<A, I>,
  options: {
    readonly maxAttempts?: number
    readonly retry?: Schedule.Schedule<unknown, unknown>
    readonly timeout?: Duration.DurationInput
    readonly priority?: number
  } = {}
): JobKind<A, I> => ({
  name,
  payload,
  maxAttempts: options.maxAttempts ?? 5,
  retry: options.retry ?? JobRetrySchedule,
  timeout: Duration.decode(options.timeout ?? DEFAULT_JOB_TIMEOUT),
  priority: options.priority ?? 0
})

/** A kind whose payload is any JSON value: for tests and tools that drive the queue directly. */
export const untypedJobKind = (name: string, options?: Parameters<typeof jobKind>[2]) =>
  jobKind(name, Schema.Unknown, options)
