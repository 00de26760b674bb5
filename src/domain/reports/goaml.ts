// A suspicion report as goAML XML, the format UNODC's goAML system takes (FIUs that run goAML receive reports as an
// XML file, alongside or instead of a PDF). Pure: the report's data in, the document's text out.
//
// No goAML XSD could be obtained where Caravan is built, so the structure follows the published field list of the goAML
// "Standard XML Reporting Instructions and Specifications" (schema 4.x/5.x, as FIU Deutschland's Annexure 2 and the
// UNODC schema description give it): the `report` node (rentity_id, submission_code, report_code, entity_reference,
// fiu_ref_number, submission_date, currency_code_local, reporting_person, location, reason, action), one
// `transaction` (transactionnumber, internal_ref_number, transaction_location, transaction_description,
// date_transaction, transmode_code, transmode_comment, amount_local, then the from side and the to side), and
// `report_indicators`. Elements are written in that order; lookups that each FIU customises (transmode, funds codes)
// are given as the generic "other" code with the asset in words beside them. See docs/reports.md "goAML XML".

/** Jurisdictions whose FIU takes reports through goAML (docs/reports.md lists them and where that is stated). */
export const GOAML_JURISDICTIONS: ReadonlySet<string> = new Set(["AE", "AT", "BE", "CZ", "DE", "DK", "FI", "IE", "LU", "NL"]);

export interface GoamlParty {
  /** Given names and family name of a natural person (IVMS101 secondary and primary identifier). */
  given: string | null;
  family: string | null;
  /** A legal person's name instead. */
  legalName: string | null;
  country: string | null;
  walletAddress: string | null;
}

export interface GoamlInput {
  reportNumber: string;
  /** STR, SAR, UTR… (the goAML report code the FIU expects; the type's abbreviation by default). */
  reportCode: string;
  /** The reporting entity's goAML organisation ID (the filing institution's identifier). */
  rentityId: string;
  filingReference: string | null;
  submittedAt: string;
  currency: string;
  /** The reporting officer as typed: "J. de Vries, MLRO, +31 20 555 0100". */
  contactOfficer: string;
  institutionCountry: string;
  narrative: string;
  action: string;
  transfer: { id: string; direction: "incoming" | "outgoing"; amount: string; asset: string; network: string; txHash: string | null; createdAt: string };
  /** The amount in `currency` (two decimals); null when it could not be valued. */
  amountLocal: string | null;
  /** Our customer (my_client) and the other party. */
  subject: GoamlParty;
  counterparty: GoamlParty & { vasp: string | null };
  indicators: string[];
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");
// XML 1.0 allows tab, LF, CR and printable characters; anything else (a stray control character) is dropped.
const clean = (s: string) => s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, "");

/** `2026-11-27T10:42:38.123Z` → `2026-11-27T10:42:38` (goAML dates carry no zone; Caravan's times are UTC). */
export const goamlDate = (iso: string) => iso.slice(0, 19);

class Writer {
  private out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  private depth = 0;
  open(tag: string) {
    this.out.push(`${"  ".repeat(this.depth)}<${tag}>`);
    this.depth++;
  }
  close(tag: string) {
    this.depth--;
    this.out.push(`${"  ".repeat(this.depth)}</${tag}>`);
  }
  /** An element with text; left out when the value is empty (goAML's optional elements are omitted, not blank). */
  el(tag: string, value: string | null | undefined) {
    if (value === null || value === undefined || value.trim() === "") return;
    this.out.push(`${"  ".repeat(this.depth)}<${tag}>${esc(clean(value))}</${tag}>`);
  }
  text() {
    return `${this.out.join("\n")}\n`;
  }
}

/** "J. de Vries, MLRO, +31 20 555 0100" → first name "J.", last name "de Vries" (the name is what comes before a comma). */
export function officerName(contact: string): { first: string; last: string } {
  const name = contact.split(",")[0].trim();
  const parts = name.split(/\s+/).filter(Boolean);
  if (parts.length <= 1) return { first: "", last: parts[0] ?? "" };
  // The first word is the given name or initial; the rest, particles included ("de Vries"), the family name.
  return { first: parts[0], last: parts.slice(1).join(" ") };
}

function party(w: Writer, side: "from" | "to", p: GoamlParty) {
  if (p.legalName && !p.family) {
    w.open(`${side}_entity`);
    w.el("name", p.legalName);
    w.el("incorporation_country_code", p.country);
    w.close(`${side}_entity`);
  } else {
    w.open(`${side}_person`);
    w.el("first_name", p.given);
    w.el("last_name", p.family ?? p.legalName ?? "unknown");
    w.el("nationality1", p.country);
    w.el("residence", p.country);
    w.close(`${side}_person`);
  }
}

/** The report as goAML XML (UTF-8 text). */
export function goamlXml(i: GoamlInput): string {
  const w = new Writer();
  const t = i.transfer;
  const mine = t.direction === "outgoing" ? "from" : "to";
  w.open("report");
  w.el("rentity_id", i.rentityId);
  w.el("submission_code", "E");
  w.el("report_code", i.reportCode);
  w.el("entity_reference", i.reportNumber);
  w.el("fiu_ref_number", i.filingReference);
  w.el("submission_date", goamlDate(i.submittedAt));
  w.el("currency_code_local", i.currency);
  const officer = officerName(i.contactOfficer);
  w.open("reporting_person");
  w.el("first_name", officer.first);
  w.el("last_name", officer.last);
  w.el("occupation", i.contactOfficer.split(",").slice(1).join(",").trim() || "Reporting officer");
  w.close("reporting_person");
  w.open("location");
  w.el("address_type", "B");
  w.el("address", "-");
  w.el("city", "-");
  w.el("country_code", i.institutionCountry);
  w.close("location");
  w.el("reason", i.narrative);
  w.el("action", i.action);
  w.open("transaction");
  w.el("transactionnumber", t.txHash ?? t.id);
  w.el("internal_ref_number", t.id);
  w.el("transaction_location", `${t.network} blockchain`);
  w.el("transaction_description", `Virtual asset transfer: ${t.amount} ${t.asset} on ${t.network}, ${t.direction}${t.txHash ? `, transaction hash ${t.txHash}` : ""}${i.subject.walletAddress ? `; customer wallet ${i.subject.walletAddress}` : ""}${i.counterparty.walletAddress ? `; counterparty wallet ${i.counterparty.walletAddress}` : ""}${i.counterparty.vasp ? `; counterparty VASP ${i.counterparty.vasp}` : ""}`);
  w.el("date_transaction", goamlDate(t.createdAt));
  w.el("transmode_code", "O");
  w.el("transmode_comment", `virtual asset (${t.asset})`);
  w.el("amount_local", i.amountLocal ?? "0.00");
  const side = (s: "from" | "to", p: GoamlParty, my: boolean) => {
    const node = `t_${s}${my ? "_my_client" : ""}`;
    w.open(node);
    w.el(`${s}_funds_code`, "O");
    w.el(`${s}_funds_comment`, `${t.asset} on ${t.network}`);
    party(w, s, p);
    w.el(`${s}_country`, p.country ?? i.institutionCountry);
    w.close(node);
  };
  // goAML writes the from side before the to side; my_client marks our customer's side.
  if (mine === "from") {
    side("from", i.subject, true);
    side("to", i.counterparty, false);
  } else {
    side("from", i.counterparty, false);
    side("to", i.subject, true);
  }
  w.close("transaction");
  if (i.indicators.length) {
    w.open("report_indicators");
    for (const x of i.indicators) w.el("indicator", x);
    w.close("report_indicators");
  }
  w.close("report");
  return w.text();
}
