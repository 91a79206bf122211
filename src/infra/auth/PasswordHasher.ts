import { hash, type Options, verify } from "@node-rs/argon2"
import { Effect } from "effect"

/** Argon2id at the OWASP minimum: 19 MiB of memory, 2 iterations, 1 lane. */
const ARGON2ID = {
  algorithm: 2 as NonNullable<Options["algorithm"]> /* Argon2id */,
  memoryCost: 19 * 1024,
  timeCost: 2,
  parallelism: 1
} as const

/** The PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`), salt included. */
export const hashPassword = (password: string) => Effect.promise(() => hash(password, ARGON2ID))

/** False for a wrong password and for a malformed stored hash alike. */
export const verifyPassword = (storedHash: string, password: string) =>
  Effect.promise(() => verify(storedHash, password).catch(() => false))
