import { Context, Duration, Effect, Layer, Option } from "effect"
import { classifyAddress } from "../../domain/webhooks/SpecialAddresses.js"
import { AppConfig } from "../config/AppConfig.js"
import { forbiddenAddressReason, type ResolveAll, systemResolveAll } from "./CheckedLookup.js"

/** A registration lookup that takes longer than this counts as "does not resolve". */
const LOOKUP_TIMEOUT = Duration.seconds(5)

/**
 * Refuses, at registration, a receiver URL no delivery could ever reach: its host is, or resolves
 * to, an address the delivery-time guard refuses (the same classifier: loopback, private, link-local
 * and metadata, CGNAT, unspecified, ...), or it does not resolve at all. The delivery-time guard
 * stays: DNS answers can change after registration. With WEBHOOK_ALLOW_PRIVATE_NETWORKS nothing is
 * looked up here (tests, on-premises receivers on names only the workers can resolve).
 */
export class ReceiverHostCheck extends Context.Tag("ReceiverHostCheck")<
  ReceiverHostCheck,
  {
    /** Why webhooks could never reach this (already validated https) URL, or none. */
    readonly problemOf: (url: string) => Effect.Effect<Option.Option<string>>
  }
>() {}

const lookup = (resolveAll: ResolveAll, hostname: string) =>
  Effect.async<ReadonlyArray<{ readonly address: string }>, string>((resume) =>
    resolveAll(hostname, (error, addresses) =>
      resume(error ? Effect.fail(error.code ?? error.message) : Effect.succeed(addresses))
    )
  ).pipe(Effect.timeoutFail({ duration: LOOKUP_TIMEOUT, onTimeout: () => "no answer within 5 s" }))

export const makeReceiverHostCheck = (resolveAll: ResolveAll) =>
  Layer.effect(
    ReceiverHostCheck,
    Effect.map(AppConfig, ({ webhookAllowPrivateNetworks }) => ({
      problemOf: (url: string) => {
        if (webhookAllowPrivateNetworks) return Effect.succeedNone
        // WHATWG URL has normalised IPv4 forms (0x7f.1, 2130706433) to dotted decimal; IPv6 keeps brackets.
        const hostname = new URL(url).hostname.replace(/^\[(.*)\]$/, "$1")
        // An IP literal is judged as it is (the socket connects to it without a lookup).
        if (classifyAddress(hostname)._tag !== "Invalid")
          return Effect.succeed(Option.fromNullable(forbiddenAddressReason(hostname, [{ address: hostname }])))
        return lookup(resolveAll, hostname).pipe(
          Effect.map((addresses) =>
            addresses.length === 0
              ? Option.some(`${hostname} does not resolve (no addresses)`)
              : Option.fromNullable(forbiddenAddressReason(hostname, addresses))
          ),
          Effect.catchAll((why) => Effect.succeedSome(`${hostname} does not resolve (${why})`))
        )
      }
    }))
  )

/** The check with the system resolver (dns.lookup), as the delivery's socket resolves. */
export const ReceiverHostCheckLive = makeReceiverHostCheck(systemResolveAll)
