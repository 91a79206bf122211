import { describe, expect, it } from "vitest"
import { type FailedDelivery, renderFailureEmail } from "../../src/domain/webhooks/FailureEmail.js"

const delivery = (over: Partial<FailedDelivery> = {}): FailedDelivery => ({
  id: "6f1c2b9e-0d4a-4c8e-9b1f-3a2d5e7c8b90",
  webhookId: "0b7e9c3a-5f21-4d6b-8a4e-2c9f1d3b7a65",
  url: "https://hooks.firma.ro/licitatii?token=a_b-C",
  attempts: 4,
  failedAt: new Date("2026-11-20T12:05:00Z"), // 14:05 in Bucharest (UTC+2)
  lastFailure: { _tag: "response", status: 500 },
  ...over
})

/**
 * The webhook failure e-mail (spec 6.3.4) speaks Romanian like the app and the daily digest: comma-
 * below ș and ț, the digest's `DD.MM.YYYY, HH:MM` in Bucharest time, its counting rule, and the ids,
 * URL and event name exactly as the API writes them.
 */
describe("the webhook failure e-mail", () => {
  it("names the webhook, the delivery, the event, the attempts, when and the last error, in Romanian", () => {
    const { subject, bodyText } = renderFailureEmail(delivery())
    expect(subject).toBe("Livrare eșuată către webhook-ul https://hooks.firma.ro/licitatii?token=a_b-C")
    expect(bodyText.split("\n")).toEqual([
      "Bună ziua,",
      "",
      "Livrarea unui eveniment tender.matched către webhook-ul dumneavoastră a eșuat după 4 încercări și nu se mai reîncearcă automat.",
      "",
      "URL webhook:   https://hooks.firma.ro/licitatii?token=a_b-C",
      "Id webhook:    0b7e9c3a-5f21-4d6b-8a4e-2c9f1d3b7a65",
      "Id livrare:    6f1c2b9e-0d4a-4c8e-9b1f-3a2d5e7c8b90",
      "Eveniment:     tender.matched",
      "Încercări:     4",
      "Eșuată la:     20.11.2026, 14:05 (ora României)",
      "Ultima eroare: răspuns HTTP 500 (doar un cod 2xx înseamnă livrat)",
      "",
      "Ce puteți face:",
      "  • Verificați receptorul de la adresa de mai sus: să fie pornit, accesibil din internet prin HTTPS și să răspundă cu un cod 2xx în cel mult 30 de secunde.",
      "  • Apoi retrimiteți livrarea din aplicație: Setări → Webhook-uri → Ultimele livrări → Retrimite. Se trimite o dată, imediat, cu același id de livrare și același conținut.",
      "",
      "--",
      "Primiți acest e-mail pentru că un webhook al contului dumneavoastră nu a primit o livrare. Webhook-urile se administrează din Setări, în aplicație."
    ])
  })

  it("writes ș and ț with the comma below, never the cedilla forms ş ţ", () => {
    const { subject, bodyText } = renderFailureEmail(delivery())
    expect(`${subject}\n${bodyText}`).not.toMatch(/[şţŞŢ]/)
    expect(bodyText).toMatch(/ș/)
    expect(bodyText).toMatch(/ț/)
  })

  it("the time is Bucharest's, summer time included", () => {
    const { bodyText } = renderFailureEmail(delivery({ failedAt: new Date("2026-07-01T21:30:00Z") }))
    expect(bodyText).toContain("Eșuată la:     02.07.2026, 00:30 (ora României)")
  })

  it("a failure without an answer in words, the dispatcher's own text kept beside them", () => {
    const lastError = (message: string) =>
      renderFailureEmail(delivery({ lastFailure: { _tag: "error", message } }))
        .bodyText.split("\n")
        .find((line) => line.startsWith("Ultima eroare:"))
    expect(lastError("timeout: no response within 30s")).toBe(
      "Ultima eroare: niciun răspuns în 30 de secunde (timeout: no response within 30s)"
    )
    expect(lastError("refused: ECONNREFUSED: connect ECONNREFUSED 203.0.113.7:443")).toBe(
      "Ultima eroare: conexiunea a fost refuzată sau întreruptă (refused: ECONNREFUSED: connect ECONNREFUSED 203.0.113.7:443)"
    )
    expect(lastError("secret: cannot be decrypted with this MASTER_KEY")).toContain("MASTER_KEY")
    // A reason it does not know: the text as it is.
    expect(lastError("something: else")).toBe("Ultima eroare: something: else")
  })

  it("counts the attempts in Romanian, and a delivery the queue gave up on says so", () => {
    const one = renderFailureEmail(delivery({ attempts: 1 })).bodyText
    expect(one).toContain("a eșuat după 1 încercare și")
    const twenty = renderFailureEmail(delivery({ attempts: 20 })).bodyText
    expect(twenty).toContain("a eșuat după 20 de încercări și")
    const stopped = renderFailureEmail(delivery({ attempts: 0, lastFailure: { _tag: "stopped" } })).bodyText
    expect(stopped).toContain("către webhook-ul dumneavoastră a eșuat și nu se mai reîncearcă automat.")
    expect(stopped).toContain("Încercări:     0")
    expect(stopped).toContain("înainte să se înregistreze un răspuns")
  })
})
