import * as dns from "node:dns"
import type { LookupFunction } from "node:net"
import { classifyAddress } from "../../domain/webhooks/SpecialAddresses.js"

/** Raised inside the socket's lookup when the host resolves to an address webhooks may not reach. */
export class ForbiddenAddressError extends Error {
  readonly code = "ERR_WEBHOOK_FORBIDDEN_ADDRESS"
}

/** Resolves a host name to every address it has (dns.lookup with `all: true`). */
export type ResolveAll = (
  hostname: string,
  callback: (error: NodeJS.ErrnoException | null, addresses: ReadonlyArray<dns.LookupAddress>) => void
) => void

export const systemResolveAll: ResolveAll = (hostname, callback) =>
  dns.lookup(hostname, { all: true }, (error, addresses) => callback(error, addresses ?? []))

/**
 * Why webhooks may not reach a host with these addresses (the first special-purpose one, named with
 * its range), or undefined when every address is public. Shared by the socket's lookup (delivery)
 * and the registration check, so both refuse exactly the same hosts.
 */
export const forbiddenAddressReason = (
  hostname: string,
  addresses: ReadonlyArray<{ readonly address: string }>
): string | undefined => {
  for (const { address } of addresses) {
    const verdict = classifyAddress(address)
    if (verdict._tag !== "Public") {
      const why = verdict._tag === "Special" ? `${verdict.range.cidr}, ${verdict.range.name}` : "not an IP address"
      return address === hostname ? `${address} is in ${why}` : `${hostname} resolves to ${address} (${why})`
    }
  }
  return undefined
}

const familyNumber = (family: dns.LookupOptions["family"]): number =>
  family === "IPv4" ? 4 : family === "IPv6" ? 6 : (family ?? 0)

/**
 * The `lookup` a webhook socket connects through. It resolves the host, refuses the connection when
 * any of its addresses is special-purpose (unless private networks are allowed), and hands the socket
 * exactly the addresses it checked: the socket never resolves again, so a DNS answer that changes
 * between check and connect (rebinding) cannot slip a private address in. Because it runs only when
 * a new socket is opened, keep-alive reuse is untouched (a pooled socket was checked when it opened).
 * IP-literal hosts never reach a lookup (Node connects to them directly): the transport checks those.
 */
export const checkedLookup =
  (resolveAll: ResolveAll, allowPrivateNetworks: boolean): LookupFunction =>
  (hostname, options, callback) =>
    resolveAll(hostname, (error, addresses) => {
      if (error) return callback(error, "")
      const forbidden = allowPrivateNetworks ? undefined : forbiddenAddressReason(hostname, addresses)
      if (forbidden !== undefined) return callback(new ForbiddenAddressError(forbidden), "")
      const family = familyNumber(options.family)
      const usable = family === 0 ? addresses : addresses.filter((candidate) => candidate.family === family)
      const first = usable[0]
      if (first === undefined) {
        const notFound: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`)
        notFound.code = "ENOTFOUND"
        return callback(notFound, "")
      }
      return options.all ? callback(null, [...usable]) : callback(null, first.address, first.family)
    })
