// The evidence block of a held transfer or its case: the parties by name, each check's findings, the rule and the
// branch that fired; and the raw answers as JSON (the `J` view).
import type { Check, RuleDetail, TransferDetail, TransferValuation } from "../api.ts";
import { branchWords, checkErrorText, checkFindings, checkHeadline, partyNames, readRule, unscreenedChecks, unscreenedText } from "../evidence.ts";
import type { Line } from "./Lines.tsx";

const MASK = "*** (personal data masked)";

/**
 * Without pii:view the API gives no check its vendor answer (`response: null`, Part 1), whatever it holds. A name
 * screening's answer is personal data: it reads as masked. An address screening's answer is not (an address risk
 * score and category, about the address, which the transfer shows to every role): it reads as not given, never as
 * personal data, so a score is not presented as masked beside the address shown in clear.
 */
export const isAddressCheck = (c: Pick<Check, "type">): boolean => c.type === "blockchain_analytics";
const SCORE_WITHHELD = "address risk score not given to a role without pii:view (the API sends no vendor answer to it); not personal data, and the addresses are shown above";

/** Parties: the screened names (from the checks' answers, which only a role with pii:view receives), address, VASP. */
export function partyLines(t: TransferDetail): Line[] {
  const names = partyNames(t.compliance?.checks ?? []);
  const failed = unscreenedChecks(t.compliance?.checks ?? []).length > 0;
  // A name is masked only when a name screening's answer was withheld; address checks screen no name.
  const nameChecks = (t.compliance?.checks ?? []).filter((c) => !isAddressCheck(c));
  const masked = !failed && nameChecks.length > 0 && nameChecks.every((c) => c.response == null);
  // A check that did not run leaves the name unchecked: never "screened", never a match.
  const who = (n: string | null) => n ?? (failed ? "name could not be checked (screening did not run)" : masked ? MASK : "name not screened");
  return [
    { text: `Originator  ${who(names.originator)} · ${t.originator?.address ?? "-"} · VASP ${vaspOf(t.originator)}` },
    { text: `Beneficiary ${who(names.beneficiary)} · ${t.beneficiary?.address ?? "-"} · VASP ${vaspOf(t.beneficiary)}` },
  ];
}

/** The party's VASP as discovery found it; before discovery (a precheck hold) it is not known yet. */
function vaspOf(p: { vaspName?: string | null; vaspId?: string | null } | null | undefined): string {
  return p?.vaspName ?? p?.vaspId ?? "not yet discovered";
}

const group = (v: string) => {
  const [i, f] = v.split(".");
  return `${i.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${f !== undefined ? `.${f}` : ""}`;
};

/**
 * The value in fiat the threshold decision used: `Value       3,200.00 USD (1 ETH at 3,200 USD per ETH, coingecko,
 * rate of 2026-12-01 10:00 UTC) · threshold 1,000 USD (FATF)`; says so when nothing was priced.
 */
export function valuationLines(v: TransferValuation | null | undefined, opts: { threshold?: boolean } = {}): Line[] {
  if (v === undefined) return [];
  if (v === null) return [{ text: "Value       (needs transfers:read)", dim: true }];
  const th = v.threshold;
  const rule = th?.amount && opts.threshold !== false ? ` · threshold ${group(th.amount)} ${th.currency ?? ""}${th.regulation ? ` (${th.regulation}${th.jurisdiction ? `, ${th.jurisdiction}` : ""})` : th.jurisdiction ? ` (${th.jurisdiction})` : ""}` : "";
  const p = v.valuation;
  if (!p) return [{ text: `Value       not priced (no rate was recorded for this transfer)${rule}`, dim: true }];
  const asset = String(v.asset).split(/[:/]/).pop();
  const when = `${p.rateAsOf.slice(0, 10)} ${p.rateAsOf.slice(11, 16)} UTC`;
  // One line at 80 columns: value, rate per unit, source, the rate's time.
  return [{ text: `Value       ${group(p.value)} ${p.currency} at ${group(p.rate)}/${asset} · ${p.source} · ${when}${rule}` }];
}

export function checkLines(checks: Check[], total: number): Line[] {
  const L: Line[] = [{ text: `Checks (${total})  J shows the raw answers`, bold: true }];
  for (const c of checks) {
    L.push({ text: `  ${checkHeadline(c)}`, tone: c.status === "error" ? "bad" : undefined });
    if (c.status === "error" || c.status === "skipped") {
      L.push({ text: `    did not run: ${checkErrorText(c)}; nothing was matched or cleared`, tone: "bad" });
      continue;
    }
    const f = checkFindings(c);
    if (f === null) L.push({ text: `    finding: ${isAddressCheck(c) ? SCORE_WITHHELD : MASK}`, dim: true });
    else for (const s of f) L.push({ text: `    ${s}`, tone: /matched|risk score 0?\.[5-9]|risk score [1-9]/.test(s) ? "warn" : undefined });
  }
  return L;
}

/** The rule that matched and, read from the checks' answers, the branch that fired. */
export function ruleLines(rule: { name: string; category: string; action: string; severity: string } | null, detail: RuleDetail | null, t: TransferDetail | null): Line[] {
  if (!rule) return [];
  const L: Line[] = [{ text: `Rule        ${rule.name} (${rule.category}, ${rule.action}, ${rule.severity})`, tone: "warn" }];
  if (!detail?.conditions || !t) return L;
  const r = readRule(detail, t.compliance?.checks ?? [], t as unknown as Record<string, unknown>);
  for (const b of r.branches)
    L.push({
      // The sentence; the code form is one key away (Rules, Enter).
      text: `  ${b.index === r.fired ? "▶ fired" : "  "} ${branchWords(b.branch)}${b.read.length ? ` · read ${b.read.join(", ")}` : ""}`,
      tone: b.index === r.fired ? "warn" : undefined,
      dim: b.index !== r.fired,
    });
  const notRun = unscreenedText(t.compliance?.checks ?? []);
  if (notRun) L.push({ text: `  held because screening did not run (${notRun}): a review for lack of an answer, not a match`, tone: "bad" });
  else if (r.fired === null && r.branches.length) L.push({ text: "  no branch is met by the answers shown (masked, or the rule changed since)", dim: true });
  return L;
}

/** `J`: the checks' raw answers as the API gave them. */
export function rawLines(t: TransferDetail): Line[] {
  const text = JSON.stringify(t.compliance?.checks ?? [], null, 2);
  return [{ text: `${t.id} · compliance.checks as the API answered (Esc or J closes)`, bold: true }, ...text.split("\n").map((l) => ({ text: l }))];
}
