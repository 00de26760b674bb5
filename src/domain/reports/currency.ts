// The currency a jurisdiction's FIU reports in: the value in fiat on a report is given in it (ISO 4217).
// Euro area members (Bulgaria since 1 January 2026) report in EUR; the other EU states in their own currency.

const EURO_AREA = ["AT", "BE", "BG", "HR", "CY", "EE", "FI", "FR", "DE", "GR", "IE", "IT", "LV", "LT", "LU", "MT", "NL", "PT", "SK", "SI", "ES"];

const OWN: Record<string, string> = {
  CZ: "CZK",
  DK: "DKK",
  HU: "HUF",
  PL: "PLN",
  RO: "RON",
  SE: "SEK",
  US: "USD",
  GB: "GBP",
  CA: "CAD",
  AU: "AUD",
  SG: "SGD",
  HK: "HKD",
  JP: "JPY",
  KR: "KRW",
  CH: "CHF",
  AE: "AED",
  LI: "CHF",
  NO: "NOK",
  IS: "ISK",
};

/** The reporting currency of a jurisdiction (upper-case alpha-2), or null when Caravan does not know it. */
export function jurisdictionCurrency(jurisdiction: string | null | undefined): string | null {
  if (!jurisdiction) return null;
  const j = jurisdiction.toUpperCase() === "UK" ? "GB" : jurisdiction.toUpperCase();
  return EURO_AREA.includes(j) ? "EUR" : (OWN[j] ?? null);
}
