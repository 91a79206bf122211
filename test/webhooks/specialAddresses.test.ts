import { describe, expect, it } from "vitest"
import { classifyAddress, parseIpv4, parseIpv6 } from "../../src/domain/webhooks/SpecialAddresses.js"

const rangeOf = (address: string) => {
  const result = classifyAddress(address)
  return result._tag === "Special" ? result.range.cidr : result._tag
}

describe("IP address parsing", () => {
  it("reads strict dotted-decimal IPv4 and rejects everything else", () => {
    expect(parseIpv4("0.0.0.0")).toBe(0n)
    expect(parseIpv4("255.255.255.255")).toBe(0xffffffffn)
    expect(parseIpv4("192.168.1.2")).toBe(0xc0a80102n)
    for (const bad of [
      "1.2.3",
      "1.2.3.4.5",
      "256.0.0.1",
      "01.2.3.4",
      "1.2.3.-4",
      "1.2.3.4 ",
      "0x7f.0.0.1",
      "",
      "a.b.c.d"
    ]) {
      expect(parseIpv4(bad), bad).toBeUndefined()
    }
  })

  it("reads IPv6 with :: compression and a trailing dotted quad", () => {
    expect(parseIpv6("::")).toBe(0n)
    expect(parseIpv6("::1")).toBe(1n)
    expect(parseIpv6("1::")).toBe(1n << 112n)
    expect(parseIpv6("2001:db8::8a2e:370:7334")).toBe(0x20010db80000000000008a2e03707334n)
    expect(parseIpv6("2001:0db8:0000:0000:0000:8a2e:0370:7334")).toBe(0x20010db80000000000008a2e03707334n)
    expect(parseIpv6("::ffff:127.0.0.1")).toBe(0xffff7f000001n)
    expect(parseIpv6("::ffff:7f00:1")).toBe(0xffff7f000001n)
    expect(parseIpv6("::1.2.3.4")).toBe(0x01020304n)
    expect(parseIpv6("1:2:3:4:5:6::8")).toBe(0x00010002000300040005000600000008n)
    expect(parseIpv6("FE80::ABCD")).toBe(0xfe80000000000000000000000000abcdn)
    for (const bad of [
      "",
      ":",
      ":::",
      "1::2::3",
      "12345::",
      "::g",
      "1:2:3:4:5:6:7:8:9",
      "1:2:3:4:5:6:7::8",
      "1:2:3:4:5:6:7",
      ":1::",
      "1::2:",
      "::ffff:1.2.3",
      "::ffff:256.0.0.1",
      "fe80::1%eth0",
      "1.2.3.4"
    ]) {
      expect(parseIpv6(bad), bad).toBeUndefined()
    }
  })
})

describe("special-purpose IPv4 ranges", () => {
  it("names each range the issue lists", () => {
    expect(rangeOf("127.0.0.1")).toBe("127.0.0.0/8")
    expect(rangeOf("10.0.0.1")).toBe("10.0.0.0/8")
    expect(rangeOf("172.16.5.4")).toBe("172.16.0.0/12")
    expect(rangeOf("192.168.0.1")).toBe("192.168.0.0/16")
    expect(rangeOf("169.254.169.254")).toBe("169.254.169.254/32")
    expect(rangeOf("169.254.1.1")).toBe("169.254.0.0/16")
    expect(rangeOf("fd00:ec2::254")).toBe("fd00:ec2::254/128")
    expect(rangeOf("100.64.0.1")).toBe("100.64.0.0/10")
    expect(rangeOf("0.0.0.0")).toBe("0.0.0.0/8")
    expect(rangeOf("224.0.0.1")).toBe("224.0.0.0/4")
    expect(rangeOf("255.255.255.255")).toBe("255.255.255.255/32")
    expect(rangeOf("240.0.0.1")).toBe("240.0.0.0/4")
    expect(rangeOf("192.0.2.10")).toBe("192.0.2.0/24")
    expect(rangeOf("198.51.100.7")).toBe("198.51.100.0/24")
    expect(rangeOf("203.0.113.200")).toBe("203.0.113.0/24")
    expect(rangeOf("198.18.0.1")).toBe("198.18.0.0/15")
    expect(rangeOf("192.0.0.9")).toBe("192.0.0.0/24")
    expect(rangeOf("192.88.99.1")).toBe("192.88.99.0/24")
  })

  it("draws the boundaries exactly", () => {
    const cases: ReadonlyArray<[string, string]> = [
      ["9.255.255.255", "Public"],
      ["10.0.0.0", "10.0.0.0/8"],
      ["10.255.255.255", "10.0.0.0/8"],
      ["11.0.0.0", "Public"],
      ["100.63.255.255", "Public"],
      ["100.64.0.0", "100.64.0.0/10"],
      ["100.127.255.255", "100.64.0.0/10"],
      ["100.128.0.0", "Public"],
      ["126.255.255.255", "Public"],
      ["128.0.0.0", "Public"],
      ["169.253.255.255", "Public"],
      ["169.255.0.0", "Public"],
      ["172.15.255.255", "Public"],
      ["172.31.255.255", "172.16.0.0/12"],
      ["172.32.0.0", "Public"],
      ["192.0.1.0", "Public"],
      ["192.0.3.0", "Public"],
      ["192.167.255.255", "Public"],
      ["192.169.0.0", "Public"],
      ["198.17.255.255", "Public"],
      ["198.19.255.255", "198.18.0.0/15"],
      ["198.20.0.0", "Public"],
      ["223.255.255.255", "Public"],
      ["239.255.255.255", "224.0.0.0/4"],
      ["255.255.255.254", "240.0.0.0/4"],
      ["1.0.0.0", "Public"],
      ["0.255.255.255", "0.0.0.0/8"]
    ]
    for (const [address, expected] of cases) expect(rangeOf(address), address).toBe(expected)
  })

  it("lets ordinary public addresses through", () => {
    for (const address of ["1.1.1.1", "8.8.8.8", "93.184.216.34", "151.101.1.69"]) {
      expect(classifyAddress(address)).toEqual({ _tag: "Public" })
    }
  })
})

describe("special-purpose IPv6 ranges", () => {
  it("names loopback, unspecified, link-local, unique local, multicast and documentation", () => {
    expect(rangeOf("::1")).toBe("::1/128")
    expect(rangeOf("::")).toBe("::/128")
    expect(rangeOf("fe80::1")).toBe("fe80::/10")
    expect(rangeOf("febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff")).toBe("fe80::/10")
    expect(rangeOf("fec0::1")).toBe("fec0::/10")
    expect(rangeOf("fc00::1")).toBe("fc00::/7")
    expect(rangeOf("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")).toBe("fc00::/7")
    expect(rangeOf("ff02::1")).toBe("ff00::/8")
    expect(rangeOf("2001:db8::1")).toBe("2001:db8::/32")
    expect(rangeOf("3fff::1")).toBe("3fff::/20")
    expect(rangeOf("2001::1")).toBe("2001::/23")
    expect(rangeOf("2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff")).toBe("2001::/23")
    expect(rangeOf("2002:7f00:1::1")).toBe("2002::/16")
    expect(rangeOf("100::1")).toBe("100::/64")
    expect(rangeOf("64:ff9b:1::1")).toBe("64:ff9b:1::/48")
  })

  it("refuses everything outside global unicast 2000::/3 and draws its edges", () => {
    expect(rangeOf("1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")).toBe("not 2000::/3")
    expect(rangeOf("2000::")).toBe("Public")
    expect(rangeOf("3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff")).toBe("Public")
    expect(rangeOf("3fff:fff:ffff::")).toBe("3fff::/20")
    expect(rangeOf("3fff:1000::")).toBe("Public")
    expect(rangeOf("3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")).toBe("Public")
    expect(rangeOf("4000::")).toBe("not 2000::/3")
    expect(rangeOf("::2")).toBe("not 2000::/3")
    expect(rangeOf("::127.0.0.1")).toBe("not 2000::/3")
  })

  it("judges IPv4-mapped, -translated and NAT64 addresses by the IPv4 address they carry", () => {
    expect(rangeOf("::ffff:127.0.0.1")).toBe("127.0.0.0/8")
    expect(rangeOf("::ffff:7f00:1")).toBe("127.0.0.0/8")
    expect(rangeOf("::ffff:169.254.169.254")).toBe("169.254.169.254/32")
    expect(rangeOf("::ffff:0:10.0.0.1")).toBe("10.0.0.0/8")
    expect(rangeOf("64:ff9b::192.168.1.1")).toBe("192.168.0.0/16")
    expect(rangeOf("::ffff:8.8.8.8")).toBe("Public")
    expect(rangeOf("64:ff9b::8.8.8.8")).toBe("Public")
  })

  it("lets ordinary public addresses through", () => {
    for (const address of ["2001:4860:4860::8888", "2606:4700:4700::1111", "2a00:1450:4001:82a::200e", "2001:200::1"]) {
      expect(classifyAddress(address)).toEqual({ _tag: "Public" })
    }
  })

  it("calls anything that is not an address literal invalid (the transport refuses it)", () => {
    for (const text of ["localhost", "example.com", "fe80::1%eth0", "[::1]", ""]) {
      expect(classifyAddress(text), text).toEqual({ _tag: "Invalid" })
    }
  })
})
