import { randomUUID } from "node:crypto"

/** An incoming X-Request-Id is kept only if it is a short token: it goes into logs and jobs as is. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/

/** A request's id: the caller's X-Request-Id when it is a short token, else a generated UUID. */
export const requestIdFrom = (incoming: string | ReadonlyArray<string> | undefined): string =>
  typeof incoming === "string" && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID()
