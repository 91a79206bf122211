import { Effect, FiberRef } from "effect"

/**
 * What the logs and the queue keep of the request being served: its id (answered in X-Request-Id,
 * stored with the jobs it enqueues) and its tenant once authentication has found it. Mutable on
 * purpose: the authentication deep inside the route writes the tenant, the request's log line
 * written by the outer middleware reads it.
 */
export interface RequestFacts {
  readonly requestId: string
  tenantId: string | undefined
}

/** The request the current fiber serves, if any (set by the HTTP server's middleware). */
export const currentRequest = FiberRef.unsafeMake<RequestFacts | undefined>(undefined)

/** Records the authenticated tenant on the current request's log line; nothing outside a request. */
export const noteTenant = (tenantId: string): Effect.Effect<void> =>
  Effect.withFiberRuntime((fiber) => {
    const facts = fiber.getFiberRef(currentRequest)
    if (facts !== undefined) facts.tenantId = tenantId
    return Effect.void
  })

/** The current request's id, for the jobs it enqueues. */
export const currentRequestId: Effect.Effect<string | undefined> = Effect.map(
  FiberRef.get(currentRequest),
  (facts) => facts?.requestId
)
