/**
 * Which IP addresses a webhook may be delivered to. A webhook URL is chosen by a customer, so the
 * worker must not become a way to reach our own network: loopback, private, link-local (cloud
 * metadata at 169.254.169.254), CGNAT, multicast and every other special-purpose range of the IANA
 * IPv4 and IPv6 Special-Purpose Address Registries is refused, plus multicast and all IPv6 outside
 * global unicast (2000::/3). Entries the registries mark "globally reachable" (AS112, AMT, 6to4
 * relays, ...) are refused too: no webhook receiver lives there. IPv6 forms that carry an IPv4
 * address (mapped ::ffff:0:0/96, translated ::ffff:0:0:0/96, NAT64 64:ff9b::/96) are judged by
 * that IPv4 address. Pure: parsing and range arithmetic only.
 */

/** A named special-purpose range, e.g. `{ cidr: "127.0.0.0/8", name: "loopback" }`. */
export interface SpecialRange {
  readonly cidr: string
  readonly name: string
}

export type AddressClass =
  | { readonly _tag: "Public" }
  | { readonly _tag: "Special"; readonly range: SpecialRange }
  /** Not a literal IPv4 or IPv6 address (callers refuse it: fail closed). */
  | { readonly _tag: "Invalid" }

/** Strict dotted decimal (`a.b.c.d`, 0-255, no leading zeros) as a 32-bit number. */
export const parseIpv4 = (text: string): bigint | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4) return undefined
  let value = 0n
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part) || Number(part) > 255) return undefined
    value = (value << 8n) | BigInt(part)
  }
  return value
}

const hexGroups = (text: string): ReadonlyArray<number> | undefined => {
  if (text === "") return []
  const groups = text.split(":")
  return groups.every((group) => /^[0-9a-fA-F]{1,4}$/.test(group))
    ? groups.map((group) => Number.parseInt(group, 16))
    : undefined
}

/** RFC 4291 text form (with `::` and an optional trailing dotted quad) as a 128-bit number. No zone ids. */
export const parseIpv6 = (text: string): bigint | undefined => {
  const lastColon = text.lastIndexOf(":")
  if (lastColon < 0) return undefined
  let groupsText = text
  const embedded: Array<number> = []
  const last = text.slice(lastColon + 1)
  if (last.includes(".")) {
    const ipv4 = parseIpv4(last)
    if (ipv4 === undefined) return undefined
    embedded.push(Number(ipv4 >> 16n), Number(ipv4 & 0xffffn))
    groupsText = text.slice(0, lastColon + 1)
    // "::ffff:1.2.3.4" leaves "::ffff:" (drop the separator); "::1.2.3.4" leaves "::" (keep it).
    if (!groupsText.endsWith("::")) groupsText = groupsText.slice(0, -1)
  }
  const halves = groupsText.split("::")
  if (halves.length > 2) return undefined
  const head = hexGroups(halves[0]!)
  const tail = halves.length === 2 ? hexGroups(halves[1]!) : []
  if (head === undefined || tail === undefined) return undefined
  const explicit = head.length + tail.length + embedded.length
  // "::" stands for at least one zero group; without it there must be exactly eight.
  if (halves.length === 2 ? explicit > 7 : explicit !== 8) return undefined
  const groups = [...head, ...Array<number>(8 - explicit).fill(0), ...tail, ...embedded]
  return groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n)
}

interface Cidr {
  readonly base: bigint
  readonly prefix: number
  readonly range: SpecialRange
}

const cidr = (bits: 32 | 128, text: string, name: string): Cidr => {
  const [address, prefix] = text.split("/") as [string, string]
  const base = bits === 32 ? parseIpv4(address) : parseIpv6(address)
  if (base === undefined) throw new Error(`bad range ${text}`)
  return { base, prefix: Number(prefix), range: { cidr: text, name } }
}

const contains = (bits: 32 | 128, block: Cidr, value: bigint): boolean => {
  const shift = BigInt(bits - block.prefix)
  return value >> shift === block.base >> shift
}

/** Most specific first: the first match names the range. */
const IPV4_SPECIAL: ReadonlyArray<Cidr> = [
  ["0.0.0.0/8", "this network (unspecified)"],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "shared address space (CGNAT)"],
  ["127.0.0.0/8", "loopback"],
  // Inside link-local, named on its own so a refusal says what the address is.
  ["169.254.169.254/32", "link-local, cloud metadata service"],
  ["169.254.0.0/16", "link-local"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "IETF protocol assignments"],
  ["192.0.2.0/24", "documentation (TEST-NET-1)"],
  ["192.31.196.0/24", "AS112-v4"],
  ["192.52.193.0/24", "AMT"],
  ["192.88.99.0/24", "6to4 relay anycast (deprecated)"],
  ["192.168.0.0/16", "private"],
  ["192.175.48.0/24", "direct delegation AS112"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation (TEST-NET-2)"],
  ["203.0.113.0/24", "documentation (TEST-NET-3)"],
  ["224.0.0.0/4", "multicast"],
  ["255.255.255.255/32", "limited broadcast"],
  ["240.0.0.0/4", "reserved"]
].map(([text, name]) => cidr(32, text!, name!))

/** IPv6 ranges that embed an IPv4 address in their last 32 bits: judged by that address. */
const IPV6_EMBEDDING_IPV4: ReadonlyArray<Cidr> = [
  ["::ffff:0:0/96", "IPv4-mapped"],
  ["::ffff:0:0:0/96", "IPv4-translated"],
  ["64:ff9b::/96", "IPv4/IPv6 translation (NAT64)"]
].map(([text, name]) => cidr(128, text!, name!))

const IPV6_SPECIAL: ReadonlyArray<Cidr> = [
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["64:ff9b:1::/48", "local-use IPv4/IPv6 translation"],
  ["100::/64", "discard-only"],
  ["100:0:0:1::/64", "dummy prefix"],
  ["2001::/23", "IETF protocol assignments (Teredo, benchmarking, ORCHID, ...)"],
  ["2001:db8::/32", "documentation"],
  ["2002::/16", "6to4"],
  ["2620:4f:8000::/48", "direct delegation AS112"],
  ["3fff::/20", "documentation"],
  ["5f00::/16", "segment routing (SRv6) SIDs"],
  // Inside unique local: the AWS metadata service over IPv6.
  ["fd00:ec2::254/128", "unique local, cloud metadata service"],
  ["fc00::/7", "unique local"],
  ["fe80::/10", "link-local"],
  ["fec0::/10", "site-local (deprecated)"],
  ["ff00::/8", "multicast"]
].map(([text, name]) => cidr(128, text!, name!))

const GLOBAL_UNICAST = cidr(128, "2000::/3", "global unicast")
const OUTSIDE_GLOBAL_UNICAST: SpecialRange = { cidr: "not 2000::/3", name: "reserved (outside global unicast)" }

const classifyIpv4 = (value: bigint): AddressClass => {
  const block = IPV4_SPECIAL.find((candidate) => contains(32, candidate, value))
  return block ? { _tag: "Special", range: block.range } : { _tag: "Public" }
}

const classifyIpv6 = (value: bigint): AddressClass => {
  if (IPV6_EMBEDDING_IPV4.some((block) => contains(128, block, value))) return classifyIpv4(value & 0xffffffffn)
  const block = IPV6_SPECIAL.find((candidate) => contains(128, candidate, value))
  if (block) return { _tag: "Special", range: block.range }
  return contains(128, GLOBAL_UNICAST, value) ? { _tag: "Public" } : { _tag: "Special", range: OUTSIDE_GLOBAL_UNICAST }
}

/** Classifies a literal address as `dns.lookup` returns it (or a URL host without its brackets). */
export const classifyAddress = (address: string): AddressClass => {
  if (address.includes(":")) {
    const value = parseIpv6(address)
    return value === undefined ? { _tag: "Invalid" } : classifyIpv6(value)
  }
  const value = parseIpv4(address)
  return value === undefined ? { _tag: "Invalid" } : classifyIpv4(value)
}
