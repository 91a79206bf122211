/**
 * The time zone of a buyer's country, for the local times a notice writes without an offset (TED
 * R2.0.9's "2020-05-08 12:00" is the buyer's time). TED's country codes are ISO 3166 alpha-2 but for
 * Greece (EL) and the United Kingdom (UK); both spellings are here. A country spanning several
 * zones has its capital's (Portugal: Lisbon, not the Azores; Spain: Madrid, not the Canaries).
 * The EU, the EEA, Switzerland, the candidate countries and the UK: the countries TED publishes for.
 */
export const ZONE_BY_COUNTRY: { readonly [country: string]: string } = {
  AL: "Europe/Tirane",
  AT: "Europe/Vienna",
  BA: "Europe/Sarajevo",
  BE: "Europe/Brussels",
  BG: "Europe/Sofia",
  CH: "Europe/Zurich",
  CY: "Asia/Nicosia",
  CZ: "Europe/Prague",
  DE: "Europe/Berlin",
  DK: "Europe/Copenhagen",
  EE: "Europe/Tallinn",
  EL: "Europe/Athens",
  ES: "Europe/Madrid",
  FI: "Europe/Helsinki",
  FR: "Europe/Paris",
  GB: "Europe/London",
  GR: "Europe/Athens",
  HR: "Europe/Zagreb",
  HU: "Europe/Budapest",
  IE: "Europe/Dublin",
  IS: "Atlantic/Reykjavik",
  IT: "Europe/Rome",
  LI: "Europe/Vaduz",
  LT: "Europe/Vilnius",
  LU: "Europe/Luxembourg",
  LV: "Europe/Riga",
  MD: "Europe/Chisinau",
  ME: "Europe/Podgorica",
  MK: "Europe/Skopje",
  MT: "Europe/Malta",
  NL: "Europe/Amsterdam",
  NO: "Europe/Oslo",
  PL: "Europe/Warsaw",
  PT: "Europe/Lisbon",
  RO: "Europe/Bucharest",
  RS: "Europe/Belgrade",
  SE: "Europe/Stockholm",
  SI: "Europe/Ljubljana",
  SK: "Europe/Bratislava",
  TR: "Europe/Istanbul",
  UA: "Europe/Kyiv",
  UK: "Europe/London"
}

/** The IANA time zone of a country code as TED writes it, or undefined for one not listed. */
export const timeZoneOfCountry = (country: string | undefined): string | undefined =>
  country === undefined ? undefined : ZONE_BY_COUNTRY[country.trim().toUpperCase()]
