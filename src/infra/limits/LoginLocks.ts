import { Context, Data, Effect, Layer, Option } from "effect"
import { RedisConnection } from "../redis/RedisConnection.js"

/** The lock store did not answer; its message is the cause's, so the warning that lets a login through says why. */
export class LockStoreError extends Data.TaggedError("LockStoreError")<{ readonly cause: unknown }> {
  override get message() {
    return this.cause instanceof Error ? this.cause.message : String(this.cause)
  }
}

/**
 * Login locks: "subject S may not log in before instant T". The instant is written as a value (in
 * the service's Clock milliseconds), so reading a lock is a plain read that changes nothing (two
 * checks in the same millisecond see the same answer) and expiry follows Effect's Clock (a TestClock
 * moves it). The store's own expiry only collects old keys.
 */
export class LoginLocks extends Context.Tag("LoginLocks")<
  LoginLocks,
  {
    /** The instant (Clock ms) the lock on `key` ends, if one was ever set and not yet collected. */
    readonly lockedUntil: (key: string) => Effect.Effect<Option.Option<number>, LockStoreError>
    /** Locks `key` until `until` (Clock ms); kept by the store for `keepMillis`. */
    readonly lock: (key: string, until: number, keepMillis: number) => Effect.Effect<void, LockStoreError>
  }
>() {}

const inMemory = Layer.sync(LoginLocks, () => {
  const locks = new Map<string, number>()
  return {
    lockedUntil: (key) => Effect.sync(() => Option.fromNullable(locks.get(key))),
    lock: (key, until) =>
      Effect.clockWith((clock) =>
        Effect.sync(() => {
          // Collect ended locks as new ones arrive, so the map stays as small as the live locks.
          const now = clock.unsafeCurrentTimeMillis()
          for (const [other, end] of locks) if (end <= now) locks.delete(other)
          locks.set(key, Math.max(until, locks.get(key) ?? 0))
        })
      )
  }
})

/**
 * Locks in Redis when the process has a connection (shared by every API process), else in this
 * process. A Redis that does not answer fails a read or write after the connection's
 * REDIS_COMMAND_TIMEOUT, as a LockStoreError (LoginThrottle lets the login through).
 */
export const LoginLocksLive = (options: { readonly prefix?: string } = {}) =>
  Layer.unwrapEffect(
    Effect.map(
      RedisConnection,
      Option.match({
        onNone: () => inMemory,
        onSome: (client) => {
          const prefix = `${options.prefix ?? "tss:rl:"}lock:`
          return Layer.succeed(LoginLocks, {
            lockedUntil: (key) =>
              Effect.tryPromise({
                try: () => client.get(`${prefix}${key}`),
                catch: (cause) => new LockStoreError({ cause })
              }).pipe(
                Effect.map((value) =>
                  Option.filter(Option.fromNullable(value).pipe(Option.map(Number)), Number.isFinite)
                )
              ),
            lock: (key, until, keepMillis) =>
              Effect.tryPromise({
                try: () => client.set(`${prefix}${key}`, String(until), "PX", Math.max(1, Math.ceil(keepMillis))),
                catch: (cause) => new LockStoreError({ cause })
              }).pipe(Effect.asVoid)
          })
        }
      })
    )
  )
