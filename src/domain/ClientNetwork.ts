import { isIP } from "node:net"

/**
 * The network a per-address budget counts a client by: an IPv4 address itself, an IPv6 address its
 * /64. A subscriber is given a whole /64 (often a /56) and picks addresses in it freely (privacy
 * addresses change daily), so counting single IPv6 addresses would give one client 2^64 budgets.
 * Anything else (`unknown`) is kept as it is.
 */
export const clientNetwork = (address: string): string => {
  if (isIP(address) !== 6) return address
  return `${ipv6Groups(address).slice(0, 4).join(":")}::/64`
}

/** The eight 16-bit groups of an IPv6 address (an IPv4 tail such as `64:ff9b::1.2.3.4` included), in hex. */
const ipv6Groups = (address: string): Array<string> => {
  let text = address.replace(/%.*$/, "")
  const ipv4Tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (ipv4Tail) {
    const [a, b, c, d] = ipv4Tail.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, ipv4Tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = "", tail] = text.split("::")
  const split = (part: string) => (part === "" ? [] : part.split(":"))
  const groups =
    tail === undefined
      ? split(head)
      : [...split(head), ...Array(8 - split(head).length - split(tail).length).fill("0"), ...split(tail)]
  return groups.map((group) => Number.parseInt(group, 16).toString(16))
}
