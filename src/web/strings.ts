import { romanianCount } from "../domain/RomanianFormat.js"
import { FACTOR_LABELS_RO, VERDICT_LABELS_RO } from "../domain/scoring/RomanianLabels.js"

/**
 * Every text the browser app shows, in Romanian (its users are Romanian consultants). Components take
 * their words from here only, so a wording change or a second language touches one module.
 */
export const t = {
  appName: "Licitații punctate",
  loading: "Se încarcă…",
  retry: "Reîncearcă",
  save: "Salvează",
  cancel: "Renunță",
  edit: "Modifică",
  delete: "Șterge",
  close: "Închide",
  create: "Adaugă",
  yes: "Da",
  no: "Nu",
  none: "—",

  nav: {
    companies: "Companii",
    alerts: "Alerte",
    settings: "Setări",
    logout: "Ieșire",
    unreadAlerts: (n: number) => romanianCount(n, "alertă necitită", "alerte necitite"),
    menu: "Meniu"
  },

  login: {
    title: "Autentificare",
    subtitle: "Licitațiile potrivite pentru clienții dumneavoastră, punctate și explicate.",
    email: "E-mail",
    password: "Parolă",
    submit: "Intră în cont",
    submitting: "Se verifică…",
    throttled: (seconds: number) =>
      `Prea multe încercări nereușite. Puteți încerca din nou peste ${formatWait(seconds)}.`,
    sessionEnded: "Sesiunea s-a încheiat. Autentificați-vă din nou."
  },

  companies: {
    title: "Companii",
    intro: "Clienții pentru care urmăriți licitații.",
    add: "Adaugă o companie",
    name: "Denumire",
    fiscalCode: "Cod fiscal (CUI)",
    fiscalCodeHint: "Opțional, de exemplu RO22505268",
    description: "Descrierea activității",
    descriptionHint:
      "Ce face compania, în cuvintele ei: lucrări, produse, servicii. Licitațiile sunt punctate după această descriere și după listele de urmărire.",
    active: "Activă",
    inactive: "Inactivă",
    watchlists: (n: number) => `${romanianCount(n, "listă", "liste")} de urmărire`,
    tenders: "Licitații",
    watchlistsLink: "Liste de urmărire",
    deactivate: "Dezactivează",
    reactivate: "Reactivează",
    confirmDeactivate: (name: string) =>
      `Dezactivați compania „${name}”? Nu va mai fi punctată; datele rămân și o puteți reactiva.`,
    empty: "Nu aveți încă nicio companie. Adăugați primul client cu o descriere a activității lui.",
    created: "Compania a fost adăugată. Licitațiile se punctează în câteva secunde.",
    saved: "Modificările au fost salvate.",
    editTitle: (name: string) => `Modifică: ${name}`,
    newTitle: "Companie nouă",
    counties: "Județele în care lucrează",
    countiesHint:
      "Licitațiile din aceste județe și din cele vecine primesc un punctaj mai bun. Necompletat: județele deduse din contractele câștigate.",
    inferred: (list: string) => `Deduse din contractele câștigate: ${list}`,
    countiesShown: (list: string) => `Județe: ${list}`
  },

  /** Beside a text control whose maxLength kept text out (components/ui.tsx, Field). */
  lengthLimit: {
    cut: (n: number) => `Textul lipit a fost scurtat la ${romanianCount(n, "caracter", "caractere")}, limita câmpului.`,
    reached: (n: number) => `Ați ajuns la limita de ${romanianCount(n, "caracter", "caractere")} a câmpului.`
  },

  counties: {
    add: "Adaugă un județ",
    remove: (county: string) => `Elimină ${county}`
  },

  tenders: {
    title: (company: string) => `Licitații pentru ${company}`,
    /** The heading when the company could not be loaded (its error is shown below). */
    titleWithoutCompany: "Licitații",
    minScore: "Scor minim",
    status: "Stare",
    statusAll: "Toate",
    statusOpen: "Deschise",
    statusClosed: "Închise",
    total: (n: number) => romanianCount(n, "licitație", "licitații"),
    score: "Scor",
    authority: "Autoritate contractantă",
    county: "Județ",
    deadline: "Termen",
    value: "Valoare estimată",
    // "mai are 25 de zile", as Romanian agrees a count from 20 on (romanianCount).
    daysLeft: (days: number) =>
      days < 0
        ? "închisă"
        : days === 0
          ? "ultima zi"
          : days === 1
            ? "mai are o zi"
            : `mai are ${romanianCount(days, "zi", "zile")}`,
    noDeadline: "fără termen",
    noValue: "valoare necunoscută",
    loadMore: "Mai multe",
    end: "Ați văzut toate licitațiile.",
    empty:
      "Nicio licitație punctată încă pentru această companie. Adăugați o descriere a activității sau o listă de urmărire ca să vedeți licitații.",
    emptyFiltered: "Nicio licitație nu trece de filtre. Lărgiți sau ștergeți filtrele.",
    search: "Caută",
    searchPlaceholder: "cuvinte din titlu sau autoritate",
    countyAll: "Toate județele",
    cpv: "Cod CPV",
    deadlineFrom: "Termen de la",
    deadlineTo: "Termen până la",
    sort: "Ordonează după",
    sortScore: "Scor",
    sortDeadline: "Termen (cel mai apropiat)",
    sortValue: "Valoare (cea mai mare)",
    clearFilters: "Șterge filtrele",
    addDescription: "Modifică descrierea",
    addWatchlist: "Adaugă o listă de urmărire",
    back: "Înapoi la licitații"
  },

  // Shared with the PDF report (domain/scoring/RomanianLabels.ts).
  verdict: VERDICT_LABELS_RO as Record<"GO" | "RESEARCH" | "SKIP", string>,

  detail: {
    /** The heading when the tender could not be loaded (its error is shown below). */
    titleUnloaded: "Licitație",
    breakdown: "De ce acest scor",
    confidence: (pct: number) => `Încredere: ${pct}%`,
    factor: {
      semantic: FACTOR_LABELS_RO.semantic,
      keyword: FACTOR_LABELS_RO.keyword,
      cpv: FACTOR_LABELS_RO.cpv,
      valueFit: FACTOR_LABELS_RO.value_fit,
      historical: FACTOR_LABELS_RO.historical
    } as Record<"semantic" | "keyword" | "cpv" | "valueFit" | "historical", string>,
    // As shown (one decimal): a whole number agrees as counts do ("1 punct", "20 de puncte"), a
    // fraction takes no "de" ("21,3 puncte").
    points: (points: number) => {
      const shown = Math.round(points * 10) / 10
      return Number.isInteger(shown) ? romanianCount(shown, "punct", "puncte") : `${formatNumber(shown, 1)} puncte`
    },
    weight: (pct: number) => `pondere ${pct}%`,
    factorScore: (pct: number) => `${pct}%`,
    cpvType: {
      primary: "codul principal se potrivește",
      additional: "un cod secundar se potrivește",
      none: "niciun cod nu se potrivește"
    } as Record<"primary" | "additional" | "none", string>,
    original: "Anunțul original",
    published: "Publicată",
    description: "Descriere",
    cpvCodes: "Coduri CPV",
    model: (version: string, at: string) => `Model ${version}, punctat la ${at}`
  },

  feedback: {
    question:
      "Este licitația potrivită pentru companie? Răspunsul mută, la următoarea punctare, licitațiile din aceeași clasă CPV.",
    relevant: "Relevantă",
    notRelevant: "Nerelevantă",
    undo: "Anulează marcajul",
    markedRelevant: "Marcată ca relevantă: licitațiile din clasa ei CPV urcă în listă în câteva secunde.",
    markedNotRelevant: "Marcată ca nerelevantă: licitațiile din clasa ei CPV coboară în listă în câteva secunde."
  },

  watchlists: {
    title: (company: string) => `Liste de urmărire: ${company}`,
    titleWithoutCompany: "Liste de urmărire",
    intro: "Ce caută compania: coduri CPV, cuvinte cheie, valori, o autoritate anume.",
    add: "Listă nouă",
    name: "Denumire",
    cpv: "Coduri CPV",
    cpvSearch: "Caută un cod CPV (română sau engleză)",
    cpvSearchPlaceholder: "ex. asfalt, software, 4523",
    cpvNoResults: "Niciun cod CPV nu se potrivește căutării.",
    cpvRemove: (code: string) => `Elimină ${code}`,
    counties: "Județe",
    countiesHint: "Doar licitațiile autorităților din aceste județe dau alerte. Niciunul: oriunde.",
    countiesShown: (list: string) => `Județe: ${list}`,
    keywords: "Cuvinte cheie",
    keywordsHint: "Separate prin virgulă",
    minValue: "Valoare minimă (RON)",
    maxValue: "Valoare maximă (RON)",
    authority: "ID autoritate contractantă (opțional)",
    minScore: "Scor minim pentru alertă",
    empty: "Compania nu are liste de urmărire. Adăugați una ca să primiți alerte pentru licitațiile noi.",
    confirmDelete: (name: string) => `Ștergeți lista „${name}”? Alertele deja primite rămân.`,
    saved: "Lista a fost salvată.",
    deleted: "Lista a fost ștearsă.",
    valueRange: (min: string, max: string) => `${min} – ${max}`,
    anyValue: "orice valoare"
  },

  alerts: {
    title: "Alerte",
    filterRead: "Afișează",
    all: "Toate",
    unreadOnly: "Necitite",
    readOnly: "Citite",
    watchlist: "Listă de urmărire",
    anyWatchlist: "Toate listele",
    deletedWatchlist: (name: string) => `${name} (ștearsă)`,
    unnamedWatchlist: "O listă ștearsă",
    verdict: "Verdict",
    anyVerdict: "Toate",
    dateFrom: "De la data",
    markAllRead: "Marchează toate ca citite",
    confirmMarkAllFiltered:
      "Se marchează ca citite toate alertele contului, din toate companiile și listele, nu doar cele filtrate aici. Continuați?",
    markedAll: (n: number) =>
      n === 1 ? "O alertă marcată ca citită." : `${romanianCount(n, "alertă", "alerte")} marcate ca citite.`,
    markRead: "Marchează citită",
    markUnread: "Marchează necitită",
    unread: "necitită",
    empty: "Nicio alertă. Alertele apar când o licitație nouă trece de scorul minim al unei liste de urmărire.",
    emptyFiltered: "Nicio alertă nu trece de filtre.",
    page: (page: number, pages: number) => `Pagina ${formatNumber(page, 0)} din ${formatNumber(pages, 0)}`,
    previous: "Înapoi",
    next: "Înainte",
    back: "Înapoi la alerte"
  },

  settings: {
    title: "Setări",
    apiKeys: "Chei API",
    apiKeysIntro: "Pentru integrări: cheile dau acces la API-ul de licitații (cel mult 3 active).",
    keyName: "Nume (opțional)",
    createKey: "Creează o cheie",
    newKeyTitle: "Cheia nouă",
    newKeyWarning: "Copiați-o acum: nu va mai fi afișată niciodată.",
    copy: "Copiază",
    copied: "Copiată",
    deliveryColumns: { time: "Momentul", status: "Stare", response: "Răspuns", action: "Acțiune" },
    copyFailed: "Browserul nu a permis copierea: cheia este selectată, copiați-o cu Ctrl+C (⌘+C pe Mac).",
    revoke: "Revocă",
    revoked: "revocată",
    confirmRevoke: (name: string) => `Revocați cheia „${name}”? Aplicațiile care o folosesc se opresc imediat.`,
    noKeys: "Nicio cheie API. Creați una ca să folosiți API-ul din alte aplicații.",
    createdAt: "Creată",
    lastUsedAt: (at: string) => `folosită ultima dată ${at}`,
    neverUsed: "nefolosită încă",
    credits: "Credite luna aceasta",
    creditsRemaining: (n: number, total: number) => `${formatNumber(n, 0)} din ${formatNumber(total, 0)} rămase`,
    creditsUsed: (n: number) => `${formatNumber(n, 0)} folosite`,
    periodEnds: (at: string) => `Perioada se încheie la ${at}`,
    dailyUse: "Consum zilnic",
    dailyUseDay: (date: string, used: number) => `${date}: ${romanianCount(used, "credit", "credite")}`,
    webhooks: "Webhook-uri",
    webhooksIntro: "Adrese HTTPS care primesc licitațiile noi potrivite (evenimentul tender.matched).",
    webhookUrl: "URL (https://…)",
    webhookSecret: "Secret (cel puțin 32 de caractere)",
    addWebhook: "Adaugă webhook",
    noWebhooks: "Niciun webhook. Adăugați o adresă HTTPS ca să primiți licitațiile potrivite automat.",
    deliveries: "Ultimele livrări",
    noDeliveries: "Nicio livrare încă.",
    moreDeliveries: "Mai multe livrări",
    deliveryStatus: {
      pending: "în așteptare",
      delivering: "în curs",
      succeeded: "livrată",
      failed: "eșuată",
      webhook_deleted: "webhook șters"
    } as Record<string, string>,
    responseCode: (code: number | null) => (code === null ? "fără răspuns" : `HTTP ${code}`),
    retryDelivery: "Retrimite",
    confirmDeleteWebhook: (url: string) => `Ștergeți webhook-ul ${url}?`,
    digest: {
      title: "Rezumat zilnic pe e-mail",
      intro:
        "O dată pe zi: licitațiile noi care merită, pe fiecare companie, cele care se închid în 7 zile și alertele necitite. Nu se trimite în zilele fără noutăți.",
      enabled: "Trimite-mi rezumatul zilnic",
      hour: "Ora (ora României)",
      hourOption: (hour: number) => `${String(hour).padStart(2, "0")}:00`,
      save: "Salvează",
      saved: (hour: number) =>
        `Rezumatul zilnic este activ: îl primiți în fiecare zi la ${String(hour).padStart(2, "0")}:00.`,
      off: "Rezumatul zilnic este oprit."
    },
    sources: {
      title: "Surse de date",
      intro: "De unde vin licitațiile: anunțurile preluate automat din cele două surse publice.",
      name: {
        ted: "TED — Jurnalul Oficial al UE",
        seap: "SEAP / SICAP — e-licitatie.ro"
      } as Record<"ted" | "seap", string>,
      state: {
        active: "Activă",
        off: "Oprită",
        degraded: "Indisponibilă"
      } as Record<"active" | "off" | "degraded", string>,
      offHint: "Nu este interogată. Un operator o pornește pe worker cu",
      status: "Stare",
      watermark: "Următoarea preluare de la",
      lastSuccess: "Ultima preluare reușită",
      lastErrorAt: "Ultima eroare",
      error: "Eroarea",
      ingested: "Anunțuri preluate",
      skipped: "Anunțuri omise",
      lost: (n: number) => romanianCount(n, "anunț pierdut", "anunțuri pierdute"),
      never: "niciodată"
    }
  },

  errors: {
    network: "Serverul nu răspunde. Verificați conexiunea și încercați din nou.",
    unexpected: "A apărut o eroare neașteptată. Încercați din nou.",
    server: "Eroare pe server. Încercați din nou peste câteva momente.",
    invalidInput: "Datele trimise nu sunt valide.",
    notFound: "Nu există (sau nu mai există) ori nu aparține contului dumneavoastră.",
    byCode: {
      INVALID_CREDENTIALS: "E-mailul sau parola nu sunt corecte.",
      ACCESS_TOKEN_MISSING: "Sesiunea s-a încheiat. Autentificați-vă din nou.",
      ACCESS_TOKEN_INVALID: "Sesiunea nu mai este validă. Autentificați-vă din nou.",
      ACCESS_TOKEN_EXPIRED: "Sesiunea a expirat. Autentificați-vă din nou.",
      REFRESH_TOKEN_INVALID: "Sesiunea nu mai este validă. Autentificați-vă din nou.",
      REFRESH_TOKEN_EXPIRED: "Sesiunea a expirat. Autentificați-vă din nou.",
      REFRESH_TOKEN_REUSED: "Sesiunea a fost închisă din motive de siguranță. Autentificați-vă din nou.",
      SESSION_REVOKED: "Sesiunea a fost închisă. Autentificați-vă din nou.",
      PLAN_UPGRADE_REQUIRED: "Această funcție este disponibilă doar în planul Consultant.",
      WATCHLIST_LIMIT_REACHED: "Ați atins numărul maxim de liste de urmărire al planului.",
      API_KEY_LIMIT_EXCEEDED: "Aveți deja 3 chei API active. Revocați una ca să creați alta.",
      WEBHOOK_LIMIT_EXCEEDED: "Aveți deja 5 webhook-uri active. Ștergeți unul ca să adăugați altul.",
      DELIVERY_NOT_RETRYABLE: "Doar o livrare eșuată poate fi retrimisă.",
      INVALID_CURSOR: "Lista s-a schimbat între timp. Reîncărcați pagina.",
      NOT_FOUND: "Nu există (sau nu mai există) ori nu aparține contului dumneavoastră.",
      INTERNAL_ERROR: "Eroare pe server. Încercați din nou peste câteva momente.",
      REPORT_NOT_READY: "Raportul nu este gata încă.",
      IDEMPOTENCY_KEY_REUSED: "Cererea a fost trimisă deja cu alte date. Reîncărcați pagina și încercați din nou.",
      API_CREDITS_EXHAUSTED: "Nu mai aveți destule credite luna aceasta.",
      SERVICE_UNAVAILABLE: "Serviciul este temporar indisponibil. Încercați din nou peste câteva momente.",
      // What the server refuses before any route (RequestLimits, ErrorMapping): rare from the app's forms.
      PAYLOAD_TOO_LARGE: "Datele trimise sunt prea mari. Scurtați textul și încercați din nou.",
      UNSUPPORTED_MEDIA_TYPE: "Serverul nu a putut citi datele trimise. Reîncărcați pagina și încercați din nou.",
      URI_TOO_LONG: "Adresa cererii este prea lungă. Reduceți filtrele și încercați din nou.",
      REQUEST_HEADERS_TOO_LARGE: "Cererea este prea mare. Reîncărcați pagina și încercați din nou.",
      REQUEST_TIMEOUT: "Cererea a durat prea mult. Verificați conexiunea și încercați din nou."
    } as Record<string, string>,
    /** A code this app has no sentence for (one the server may add later): named, in Romanian. */
    unknownCode: (code: string) => `A apărut o eroare neașteptată (${code}). Încercați din nou.`,
    rateLimited: (seconds: number) => `Prea multe cereri. Încercați din nou peste ${formatWait(seconds)}.`,
    /** A field the server refused and why: "Denumire: cel mult 200 de caractere." */
    field: (label: string, reasons: ReadonlyArray<string>) => `${label}: ${reasons.join("; ")}.`,
    // Why a field was refused (the server's validation reasons, api/errors.ts), after its label.
    reason: {
      invalid: "valoarea nu este acceptată",
      required: "completați câmpul",
      tooLong: (n: number) => `cel mult ${romanianCount(n, "caracter", "caractere")}`,
      tooShort: (n: number) => `cel puțin ${romanianCount(n, "caracter", "caractere")}`,
      tooMany: (n: number) => `cel mult ${romanianCount(n, "valoare", "valori")}`,
      nul: "conține un caracter nepermis (U+0000)",
      oneLine: "scrieți totul pe un singur rând, fără Enter sau Tab",
      negative: "cel puțin 0",
      number: "introduceți un număr",
      tooLarge: "numărul este prea mare",
      range: (min: number, max: number) => `un număr întreg de la ${min} la ${max}`,
      integer: "introduceți un număr întreg",
      minAboveMax: "nu poate depăși valoarea maximă",
      unknownCpv: (code: string) => `codul ${code} nu există în nomenclatorul CPV`,
      cpvFormat: "un cod CPV are forma NNNNNNNN sau NNNNNNNN-D",
      unknownAuthority: "nu există o autoritate contractantă cu acest ID",
      notAnId: "nu este un ID valid",
      county: "alegeți unul dintre cele 41 de județe sau București",
      fiscalCode: "un cod fiscal are 2-10 cifre, eventual precedate de RO",
      https: "adresa trebuie să înceapă cu https://",
      unresolvable: "adresa nu poate fi găsită (numele serverului nu există)",
      privateAddress: "adresa duce într-o rețea privată sau rezervată, unde webhook-urile nu pot ajunge",
      dateOrder: "nu poate fi înaintea datei de început",
      date: "introduceți o dată validă",
      hour: "alegeți o oră fixă, de la 0 la 23",
      notCompanyWatchlist: "lista nu aparține companiei",
      noCompany: "compania nu există în contul dumneavoastră"
    }
  },

  fields: {
    name: "Denumire",
    description: "Descriere",
    fiscalCode: "Cod fiscal",
    email: "E-mail",
    password: "Parolă",
    cpvCodes: "Coduri CPV",
    keywords: "Cuvinte cheie",
    minValue: "Valoare minimă",
    maxValue: "Valoare maximă",
    authorityId: "Autoritate",
    minScore: "Scor minim",
    // The PDF report's body keeps the key API's snake_case names (spec 4.3).
    min_score: "Scor minim",
    date_from: "De la",
    date_to: "Până la",
    watchlist_id: "Listă de urmărire",
    url: "URL",
    secret: "Secret",
    events: "Evenimente",
    counties: "Județe",
    companyId: "Companie",
    hour: "Ora",
    q: "Căutare",
    cpv: "Cod CPV",
    deadlineFrom: "Termen de la",
    deadlineTo: "Termen până la",
    dateFrom: "De la data"
  } as Record<string, string>,

  reports: {
    title: "Rapoarte PDF",
    intro: "Raportul unei companii pe o perioadă: licitațiile punctate, cu verdictul lor. Costă 10 credite.",
    company: "Companie",
    dateFrom: "De la",
    dateTo: "Până la",
    request: "Cere raportul",
    download: "Descarcă",
    empty: "Niciun raport cerut încă. Alegeți o companie și o perioadă.",
    noCompany: "Nicio companie activă: un raport se cere pentru una dintre companiile active.",
    toCompanies: "Adăugați sau reactivați o companie",
    status: {
      pending: "în așteptare",
      generating: "se generează",
      completed: "gata",
      failed: "eșuat (cereți altul)"
    } as Record<string, string>
  },

  notFoundPage: "Pagina nu există.",
  toHome: "Înapoi la companii"
}

/**
 * The label of a request field named in a validation error (`details[].path`; `cpvCodes.3` is the
 * CPV codes'), or undefined for one the app has no label for (never the API's English name).
 */
export const fieldName = (path: string): string | undefined => {
  const field = path.split(".")[0] ?? path
  // Own labels only: `constructor` is no field.
  return Object.hasOwn(t.fields, field) ? t.fields[field] : undefined
}

/** "45 de secunde", "3 minute": the wait of a throttled request. */
export const formatWait = (seconds: number) => {
  const s = Math.max(1, Math.ceil(seconds))
  if (s < 60) return s === 1 ? "o secundă" : romanianCount(s, "secundă", "secunde")
  const m = Math.ceil(s / 60)
  return m === 1 ? "un minut" : romanianCount(m, "minut", "minute")
}

const numberFormats = new Map<number, Intl.NumberFormat>()

/** Romanian digit grouping and decimal comma: 1.234.567,5. */
export const formatNumber = (value: number, decimals: number) => {
  let format = numberFormats.get(decimals)
  if (format === undefined) {
    format = new Intl.NumberFormat("ro-RO", { minimumFractionDigits: 0, maximumFractionDigits: decimals })
    numberFormats.set(decimals, format)
  }
  return format.format(value)
}
