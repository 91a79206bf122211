import { BlockList, isIP } from "node:net"

/**
 * Which hops in front of the service may say who the client is (TRUST_PROXY). Off: the TCP peer is
 * the client and `X-Forwarded-For` is ignored (a client can write anything there). Hops: the nearest
 * `hops` proxies are trusted, whatever their addresses (a fixed chain of load balancers). Addresses:
 * a hop is trusted when its address lies in one of the listed addresses or CIDR ranges.
 */
export type TrustProxy =
  | { readonly _tag: "Off" }
  | { readonly _tag: "Hops"; readonly hops: number }
  | { readonly _tag: "Addresses"; readonly list: BlockList; readonly source: string }

export const trustNone: TrustProxy = { _tag: "Off" }

const familyOf = (address: string): "ipv4" | "ipv6" | undefined =>
  isIP(address) === 4 ? "ipv4" : isIP(address) === 6 ? "ipv6" : undefined

/**
 * A hop's address as a bare IP: IPv4-mapped IPv6 (`::ffff:10.0.0.1`, how a dual-stack socket reports
 * IPv4 peers) as IPv4, a port (`10.0.0.1:5123`, `[::1]:5123`, which some balancers append) and an IPv6
 * zone dropped. Undefined when it is not an IP address.
 */
export const normaliseAddress = (raw: string): string | undefined => {
  let address = raw.trim()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address)
  if (bracketed) address = bracketed[1] as string
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(":"))
  address = address.replace(/%.*$/, "")
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) address = mapped[1] as string
  return familyOf(address) === undefined ? undefined : address.toLowerCase()
}

/**
 * Parses TRUST_PROXY: empty, `false` or `0` → off; a whole number → that many hops; otherwise a comma
 * list of addresses and CIDR ranges (`10.0.0.0/8, 192.168.1.7, fd00::/8`). Fails with the reason.
 */
export const parseTrustProxy = (value: string): { ok: true; trust: TrustProxy } | { ok: false; reason: string } => {
  const text = value.trim()
  if (text === "" || text === "false" || text === "0") return { ok: true, trust: trustNone }
  if (/^\d+$/.test(text)) {
    const hops = Number(text)
    return hops <= 100 ? { ok: true, trust: { _tag: "Hops", hops } } : { ok: false, reason: "at most 100 hops" }
  }
  const list = new BlockList()
  for (const entry of text.split(",").map((part) => part.trim())) {
    const [address = "", prefix, ...rest] = entry.split("/")
    const family = familyOf(address)
    if (family === undefined || rest.length > 0) return { ok: false, reason: `"${entry}" is not an address or CIDR` }
    if (prefix === undefined) {
      list.addAddress(address, family)
      continue
    }
    const bits = /^\d+$/.test(prefix) ? Number(prefix) : Number.NaN
    if (!(bits >= 0 && bits <= (family === "ipv4" ? 32 : 128))) {
      return { ok: false, reason: `"${entry}" has a bad prefix length` }
    }
    list.addSubnet(address, bits, family)
  }
  return { ok: true, trust: { _tag: "Addresses", list, source: text } }
}

const trusted = (list: BlockList, address: string) => {
  const family = familyOf(address)
  return family !== undefined && list.check(address, family)
}

/**
 * The client's address: the TCP peer, unless it is a trusted proxy; then `X-Forwarded-For` is read
 * from its right-hand end (what the nearest proxy appended) leftwards, through trusted hops only,
 * and the first hop that is not trusted is the client. Entries to the left of it were written by
 * the client or by hops we cannot vouch for, so they are never read. An entry that is not an IP
 * address ends the walk at the proxy that forwarded it (a malformed header cannot pick a key).
 * `forwardedFor` is every X-Forwarded-For header value, in order.
 */
export const clientAddress = (
  peer: string | undefined,
  forwardedFor: ReadonlyArray<string>,
  trust: TrustProxy
): string => {
  const peerAddress = peer === undefined ? undefined : (normaliseAddress(peer) ?? peer)
  if (peerAddress === undefined) return "unknown"
  if (trust._tag === "Off") return peerAddress
  // Nearest first: the peer, then X-Forwarded-For from its last entry back to its first.
  const hops = forwardedFor
    .flatMap((value) => value.split(","))
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
    .reverse()
  let client = peerAddress
  for (let i = 0; i < hops.length; i++) {
    const isTrusted = trust._tag === "Hops" ? i < trust.hops : trusted(trust.list, client)
    if (!isTrusted) break
    const next = normaliseAddress(hops[i] as string)
    if (next === undefined) break
    client = next
  }
  return client
}
