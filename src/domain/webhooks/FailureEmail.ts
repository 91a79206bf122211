import { formatRoDateTime, romanianCount } from "../RomanianFormat.js"
import { TENDER_MATCHED } from "./DeliverySchedule.js"

/**
 * Why the last attempt of a delivery failed: the receiver's answer (not a 2xx), no answer (the
 * dispatcher's `<reason>: <detail>`, e.g. `timeout: no response within 30s`), or the queue gave
 * up on the delivery's job before an answer was recorded (its workers kept dying).
 */
export type LastFailure =
  | { readonly _tag: "response"; readonly status: number }
  | { readonly _tag: "error"; readonly message: string }
  | { readonly _tag: "stopped" }

export interface FailedDelivery {
  readonly id: string
  readonly webhookId: string
  readonly url: string
  /** Attempts made (0 when the queue gave up before the first was recorded). */
  readonly attempts: number
  /** When the delivery became `failed`. */
  readonly failedAt: Date
  readonly lastFailure: LastFailure
}

/**
 * The failures without an answer in words a consultant reads, by the reason the dispatcher writes
 * before the detail (WebhookSendFailed's reasons, and `secret` for a secret that cannot be opened).
 */
const NO_ANSWER: Record<string, string> = {
  timeout: "niciun răspuns în 30 de secunde",
  refused: "conexiunea a fost refuzată sau întreruptă",
  tls: "conexiunea securizată (TLS) a eșuat: certificatul sau negocierea",
  network: "eroare de rețea (adresa nu se rezolvă sau nu poate fi atinsă)",
  forbidden_address: "adresa duce într-o rețea privată sau rezervată, unde webhook-urile nu pot ajunge",
  invalid_url: "adresa nu este un URL https:// valid",
  secret: "secretul webhook-ului nu poate fi descifrat cu cheia serverului (MASTER_KEY)"
}

/** The last error in Romanian; the dispatcher's own text kept as it is, beside it, for whoever debugs the receiver. */
const lastErrorOf = (failure: LastFailure) => {
  switch (failure._tag) {
    case "response":
      return `răspuns HTTP ${failure.status} (doar un cod 2xx înseamnă livrat)`
    case "error": {
      const reason = /^([a-z_]+): /.exec(failure.message)?.[1]
      const words = reason === undefined ? undefined : NO_ANSWER[reason]
      return words === undefined ? failure.message : `${words} (${failure.message})`
    }
    case "stopped":
      return "încercarea s-a întrerupt înainte să se înregistreze un răspuns (serverul nostru a renunțat la ea după prea multe reporniri)"
  }
}

const FOOTER =
  "Primiți acest e-mail pentru că un webhook al contului dumneavoastră nu a primit o livrare. Webhook-urile se administrează din Setări, în aplicație."

/** `Label:` padded so the values line up, as in a plain-text e-mail read in a fixed font. */
const field = (label: string, value: string) => `${`${label}:`.padEnd(15)}${value}`

/**
 * The e-mail sent to every user of the tenant when a delivery ends `failed` (spec 6.3.4), in
 * Romanian like the app and the daily digest: which webhook (URL and id), which delivery and event,
 * how many attempts, when (Bucharest time) and the last error, then what to do: check the receiver,
 * then retry from the app's webhook list (Setări → Webhook-uri), the dashboard of spec 6.3.5.
 * Ids, URL and event name are written exactly, for searching the receiver's logs.
 */
export const renderFailureEmail = (
  delivery: FailedDelivery
): { readonly subject: string; readonly bodyText: string } => {
  const after = delivery.attempts > 0 ? ` după ${romanianCount(delivery.attempts, "încercare", "încercări")}` : ""
  return {
    subject: `Livrare eșuată către webhook-ul ${delivery.url}`,
    bodyText: [
      "Bună ziua,",
      "",
      `Livrarea unui eveniment ${TENDER_MATCHED} către webhook-ul dumneavoastră a eșuat${after} și nu se mai reîncearcă automat.`,
      "",
      field("URL webhook", delivery.url),
      field("Id webhook", delivery.webhookId),
      field("Id livrare", delivery.id),
      field("Eveniment", TENDER_MATCHED),
      field("Încercări", String(delivery.attempts)),
      field("Eșuată la", `${formatRoDateTime(delivery.failedAt.getTime())} (ora României)`),
      field("Ultima eroare", lastErrorOf(delivery.lastFailure)),
      "",
      "Ce puteți face:",
      "  • Verificați receptorul de la adresa de mai sus: să fie pornit, accesibil din internet prin HTTPS și să răspundă cu un cod 2xx în cel mult 30 de secunde.",
      "  • Apoi retrimiteți livrarea din aplicație: Setări → Webhook-uri → Ultimele livrări → Retrimite. Se trimite o dată, imediat, cu același id de livrare și același conținut.",
      "",
      "--",
      FOOTER
    ].join("\n")
  }
}
