// A create repeated with an Idempotency-Key already used: the key answers with the transfer it created whatever the
// body (Part 1), so a body that names another transfer is worth a warning to the operator. What is compared is what
// the transfer records in the clear; persons are sealed and are not compared.

/** What the earlier transfer recorded of its create. */
export interface RecordedCreate {
  asset: string;
  network: string;
  amount: string;
  originatorCustomerId: string | null;
  originatorAddress: string | null;
  beneficiaryAddress: string | null;
  preferredProtocol: string | null;
}

const text = (v: unknown): string | null => (typeof v === "string" ? v.trim() : v === undefined || v === null ? null : JSON.stringify(v));
const same = (a: string | null, b: string | null, caseless = false) => (caseless ? a?.toLowerCase() === b?.toLowerCase() : a === b);

/** The create fields in which `body` differs from the transfer the key created (empty: the same intent). */
export function replayDifferences(recorded: RecordedCreate, body: unknown): string[] {
  const b = body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const out: string[] = [];
  if (!same(text(b.asset), recorded.asset, true)) out.push("asset");
  if (!same(text(b.network), recorded.network)) out.push("network");
  if (!same(text(b.amount), recorded.amount) && !(typeof b.amount === "string" && sameDecimal(b.amount, recorded.amount))) out.push("amount");
  if (!same(text(b.originatorCustomerId), recorded.originatorCustomerId)) out.push("originatorCustomerId");
  // An address is compared without case (checksum casing); an absent optional field matches an absent record.
  if (!same(text(b.originatorAddress), recorded.originatorAddress, true)) out.push("originatorAddress");
  if (!same(text(b.beneficiaryAddress), recorded.beneficiaryAddress, true)) out.push("beneficiaryAddress");
  if (!same(text(b.preferredProtocol), recorded.preferredProtocol)) out.push("preferredProtocol");
  return out;
}

/** "1.50" and "1.5" name the same amount. */
function sameDecimal(a: string, b: string): boolean {
  const norm = (x: string) => {
    const [i, f = ""] = x.trim().split(".");
    return `${i.replace(/^0+(?=\d)/, "")}.${f.replace(/0+$/, "")}`;
  };
  return /^\d+(\.\d+)?$/.test(a.trim()) && /^\d+(\.\d+)?$/.test(b) && norm(a) === norm(b);
}
