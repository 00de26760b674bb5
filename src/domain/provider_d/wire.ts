// TRP v3 messages (docs/providers/provider_d.md "Wire"): the transfer inquiry, its resolution (approved, rejected or
// the bare version acknowledgement), the transfer confirmation (txid or canceled), the discoverability answers.
// Liberal in what is read (number or text amounts, slip0044 or DTI assets, 2020 or 2023 IVMS101, unknown fields and
// extensions), exact in what is written. Pure; a refusal names the first field that failed, never a value.
import Decimal from "decimal.js";
import { readMessage, type Side } from "../ivms101/editions.ts";

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** The TRP version Caravan speaks, and the ones it accepts from peers (3.0.0 made mutual TLS mandatory). */
export const TRP_API_VERSION = "3.2.1";
export const TRP_ACCEPTED_MAJOR = 3;

export const HEADER = { version: "api-version", requestId: "request-identifier", extensions: "api-extensions" } as const;

/** A version a peer sent is one we understand: 3.x.y (any minor or patch; unknown additions are ignored). */
export function acceptsApiVersion(v: string | null | undefined): boolean {
  if (!v) return false;
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(v.trim());
  return m !== null && Number(m[1]) === TRP_ACCEPTED_MAJOR;
}

/** The request identifier the protocol asks for: a UUID (any version), case-insensitive. */
export const isRequestIdentifier = (v: string | null | undefined): v is string => !!v && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v.trim());

/** `api-extensions`: comma-separated names; blanks dropped. */
export function parseExtensions(v: string | null | undefined): string[] {
  return (v ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
}

export type Read<T> = { ok: true; value: T } | { ok: false; path: string };

export interface TrpAsset {
  slip0044?: number;
  dti?: string;
}

export interface TrpVasp {
  name: string | null;
  lei: string | null;
}

export interface Inquiry {
  asset: TrpAsset;
  /** A decimal string of the asset's unit, as read from a number or a text. */
  amount: string;
  callback: string;
  originator: Side;
  beneficiary: Side | null;
  originatingVasp: TrpVasp | null;
  beneficiaryVasp: TrpVasp | null;
  extensions: Rec;
}

/** A JSON number or a decimal text, positive, at most 40 significant digits: its plain decimal spelling. */
export function readAmount(v: unknown): string | null {
  let d: Decimal;
  if (typeof v === "number") {
    if (!Number.isFinite(v)) return null;
    d = new Decimal(String(v));
  } else if (typeof v === "string" && /^\s*\d+(\.\d+)?\s*$/.test(v)) d = new Decimal(v.trim());
  else return null;
  if (d.lte(0) || d.sd() > 40) return null;
  return d.toFixed();
}

function readVasp(v: unknown, key: "originatingVASP" | "beneficiaryVASP"): TrpVasp | null {
  // IVMS101: { originatingVASP: { originatingVASP: { legalPerson | naturalPerson } } }; some peers drop one level.
  if (!isRec(v)) return null;
  const inner = isRec(v[key]) ? (v[key] as Rec) : v;
  const lp = isRec(inner.legalPerson) ? (inner.legalPerson as Rec) : null;
  if (!lp) return { name: null, lei: null };
  const names = isRec(lp.name) && Array.isArray((lp.name as Rec).nameIdentifier) ? ((lp.name as Rec).nameIdentifier as unknown[]) : [];
  const first = names.find((n) => isRec(n) && typeof n.legalPersonName === "string") as Rec | undefined;
  const nid = isRec(lp.nationalIdentification) ? (lp.nationalIdentification as Rec) : null;
  const lei = nid && nid.nationalIdentifierType === "LEIX" && typeof nid.nationalIdentifier === "string" ? nid.nationalIdentifier : null;
  return { name: (first?.legalPersonName as string | undefined) ?? null, lei };
}

/** The transfer inquiry (POST to the Travel Address URL). */
export function readInquiry(body: unknown): Read<Inquiry> {
  if (!isRec(body)) return { ok: false, path: "" };
  const a = body.asset;
  const asset: TrpAsset = {};
  if (typeof a === "number" && Number.isInteger(a) && a >= 0) asset.slip0044 = a; // TRP before 3.2: a bare coin type
  else if (isRec(a)) {
    if (a.slip0044 !== undefined) {
      if (typeof a.slip0044 !== "number" || !Number.isInteger(a.slip0044) || a.slip0044 < 0) return { ok: false, path: "asset.slip0044" };
      asset.slip0044 = a.slip0044;
    }
    if (a.dti !== undefined) {
      if (typeof a.dti !== "string" || !/^[0-9A-Z]{9}$/.test(a.dti)) return { ok: false, path: "asset.dti" };
      asset.dti = a.dti;
    }
    if (asset.slip0044 === undefined && asset.dti === undefined) return { ok: false, path: "asset" };
  } else return { ok: false, path: "asset" };
  const amount = readAmount(body.amount);
  if (amount === null) return { ok: false, path: "amount" };
  if (typeof body.callback !== "string" || !isHttpsUrl(body.callback)) return { ok: false, path: "callback" };
  const ivms = body.IVMS101 ?? body.ivms101;
  if (!isRec(ivms)) return { ok: false, path: "IVMS101" };
  const msg = readMessage({ originator: ivms.originator, beneficiary: ivms.beneficiary });
  if (!msg.ok) return { ok: false, path: `IVMS101.${msg.path}` };
  if (!msg.value.originator || msg.value.originator.persons.length === 0) return { ok: false, path: "IVMS101.originator" };
  const extensions = isRec(body.extensions) ? body.extensions : {};
  return {
    ok: true,
    value: {
      asset,
      amount,
      callback: body.callback,
      originator: msg.value.originator,
      beneficiary: msg.value.beneficiary,
      originatingVasp: readVasp(ivms.originatingVASP, "originatingVASP"),
      beneficiaryVasp: readVasp(ivms.beneficiaryVASP, "beneficiaryVASP"),
      extensions,
    },
  };
}

export type Resolution =
  | { kind: "approved"; address: string; callback: string }
  | { kind: "rejected"; comment: string }
  /** The bare `{version}` answer: the decision is POSTed to the inquiry's callback later. */
  | { kind: "acknowledged"; version: string };

/** An inquiry's answer, or the resolution POSTed to our callback later. Exactly one of approved, rejected, version. */
export function readResolution(body: unknown): Read<Resolution> {
  if (!isRec(body)) return { ok: false, path: "" };
  const has = (k: string) => body[k] !== undefined && body[k] !== null;
  const count = ["approved", "rejected", "version"].filter(has).length;
  if (count !== 1) {
    // Some peers echo `version` beside their decision: the decision is what counts.
    if (!(count === 2 && has("version") && (has("approved") || has("rejected")))) return { ok: false, path: count === 0 ? "approved" : "" };
  }
  if (has("approved")) {
    const ap = body.approved;
    if (!isRec(ap)) return { ok: false, path: "approved" };
    if (typeof ap.address !== "string" || ap.address.trim() === "" || ap.address.length > 256) return { ok: false, path: "approved.address" };
    if (typeof ap.callback !== "string" || !isHttpsUrl(ap.callback)) return { ok: false, path: "approved.callback" };
    return { ok: true, value: { kind: "approved", address: ap.address.trim(), callback: ap.callback } };
  }
  if (has("rejected")) {
    if (typeof body.rejected !== "string") return { ok: false, path: "rejected" };
    return { ok: true, value: { kind: "rejected", comment: body.rejected.slice(0, 500) } };
  }
  if (typeof body.version !== "string") return { ok: false, path: "version" };
  return { ok: true, value: { kind: "acknowledged", version: body.version } };
}

export type Confirmation = { kind: "txid"; txid: string } | { kind: "canceled"; comment: string };

/** The transfer confirmation (POSTed to the approval's callback): exactly one of txid, canceled. */
export function readConfirmation(body: unknown): Read<Confirmation> {
  if (!isRec(body)) return { ok: false, path: "" };
  const tx = body.txid;
  const cx = body.canceled;
  const hasTx = typeof tx === "string" && tx.trim() !== "";
  const hasCx = cx !== undefined && cx !== null;
  if (hasTx && hasCx) return { ok: false, path: "canceled" };
  if (hasTx) return (tx as string).length > 256 ? { ok: false, path: "txid" } : { ok: true, value: { kind: "txid", txid: (tx as string).trim() } };
  if (hasCx) return typeof cx === "string" ? { ok: true, value: { kind: "canceled", comment: cx.slice(0, 500) } } : { ok: false, path: "canceled" };
  return { ok: false, path: "txid" };
}

export interface Identity {
  name: string | null;
  lei: string | null;
  x509: string | null;
}

export function readIdentity(body: unknown): Read<Identity> {
  if (!isRec(body)) return { ok: false, path: "" };
  const str = (k: string): string | null | undefined => (body[k] === undefined || body[k] === null ? null : typeof body[k] === "string" ? (body[k] as string) : undefined);
  const name = str("name");
  const lei = str("lei");
  const x509 = str("x509");
  if (name === undefined) return { ok: false, path: "name" };
  if (lei === undefined) return { ok: false, path: "lei" };
  if (x509 === undefined) return { ok: false, path: "x509" };
  return { ok: true, value: { name, lei, x509 } };
}

export interface VersionInfo {
  version: string;
  vendor: string | null;
}

export function readVersion(body: unknown): Read<VersionInfo> {
  if (!isRec(body) || typeof body.version !== "string") return { ok: false, path: "version" };
  return { ok: true, value: { version: body.version, vendor: typeof body.vendor === "string" ? body.vendor : null } };
}

/** `/extensions`: `{required?, supported?}`, lists of names. */
export function readExtensions(body: unknown): Read<{ required: string[]; supported: string[] }> {
  if (!isRec(body)) return { ok: false, path: "" };
  const list = (k: string): string[] | null => (body[k] === undefined || body[k] === null ? [] : Array.isArray(body[k]) && (body[k] as unknown[]).every((x) => typeof x === "string") ? (body[k] as string[]) : null);
  const required = list("required");
  const supported = list("supported");
  if (!required) return { ok: false, path: "required" };
  if (!supported) return { ok: false, path: "supported" };
  return { ok: true, value: { required, supported } };
}

/** `/uptime`: a plain-text count of seconds. */
export function readUptime(text: string): number | null {
  const t = text.trim();
  return /^\d{1,15}$/.test(t) ? Number(t) : null;
}

export function isHttpsUrl(text: string): boolean {
  if (text.length > 2048 || /[\s\\]/.test(text)) return false;
  try {
    const u = new URL(text);
    return u.protocol === "https:" && u.hostname !== "" && u.username === "" && u.password === "" && u.hash === "";
  } catch {
    return false;
  }
}

/**
 * A JSON text with `amount` written as the exact decimal number (JSON numbers have no precision limit; JSON.stringify
 * of a float would round). `amount` must be a plain decimal string.
 */
export function writeInquiry(inquiry: { asset: TrpAsset; amount: string; callback: string; IVMS101: Rec; extensions?: Rec }): string {
  if (!/^\d+(\.\d+)?$/.test(inquiry.amount)) throw new RangeError("amount must be a plain decimal string");
  const marker = "\u0000amount\u0000";
  const text = JSON.stringify({ asset: inquiry.asset, amount: marker, callback: inquiry.callback, IVMS101: inquiry.IVMS101, ...(inquiry.extensions ? { extensions: inquiry.extensions } : {}) });
  return text.replace(JSON.stringify(marker), inquiry.amount);
}
