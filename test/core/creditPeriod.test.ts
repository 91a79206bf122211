import { describe, expect, it } from "vitest"
import { creditPeriodAt } from "../../src/domain/CreditPeriod.js"

describe("credit periods are calendar months in Europe/Bucharest", () => {
  it("ends at the next local midnight of the 1st, with the winter offset", () => {
    const period = creditPeriodAt(Date.parse("2026-11-22T06:00:00Z"))
    expect(period.start).toBe("2026-11-01")
    expect(period.endsAtText).toBe("2026-12-01T00:00:00+02:00")
    expect(period.endsAt.toISOString()).toBe("2026-11-30T22:00:00.000Z")
  })

  it("carries the summer offset when the month ends in summer time", () => {
    expect(creditPeriodAt(Date.parse("2026-06-10T12:00:00Z")).endsAtText).toBe("2026-07-01T00:00:00+03:00")
  })

  it("switches month at local midnight, not UTC midnight", () => {
    // 22:30 UTC on 30 November is already 00:30 on 1 December in Bucharest.
    expect(creditPeriodAt(Date.parse("2026-11-30T22:30:00Z")).start).toBe("2026-12-01")
    expect(creditPeriodAt(Date.parse("2026-11-30T21:59:59Z")).start).toBe("2026-11-01")
  })

  it("handles the month after a DST change and the year boundary", () => {
    expect(creditPeriodAt(Date.parse("2026-03-31T20:59:59Z"))).toMatchObject({
      start: "2026-03-01",
      endsAtText: "2026-04-01T00:00:00+03:00"
    })
    expect(creditPeriodAt(Date.parse("2026-12-31T22:00:00Z"))).toMatchObject({
      start: "2027-01-01",
      endsAtText: "2027-02-01T00:00:00+02:00"
    })
  })

  it("a period that starts in summer time and ends in winter time, and a leap February, end at local midnight", () => {
    // October opens at +03:00 and ends at +02:00: 22:00Z on the 31st, not 21:00Z.
    expect(creditPeriodAt(Date.parse("2026-10-31T21:59:59Z"))).toMatchObject({
      start: "2026-10-01",
      endsAt: new Date("2026-10-31T22:00:00.000Z"),
      endsAtText: "2026-11-01T00:00:00+02:00"
    })
    expect(creditPeriodAt(Date.parse("2026-10-31T22:00:00Z")).start).toBe("2026-11-01")
    expect(creditPeriodAt(Date.parse("2028-02-29T21:59:59Z"))).toMatchObject({
      start: "2028-02-01",
      endsAt: new Date("2028-02-29T22:00:00.000Z"),
      endsAtText: "2028-03-01T00:00:00+02:00"
    })
    expect(creditPeriodAt(Date.parse("2028-02-29T22:00:00Z")).start).toBe("2028-03-01")
  })
})
