// provider_e (Sygna Bridge v2) wire shapes: paths, the bodies we sign in the order the provider's utility signs them,
// and tolerant readers of what the bridge and counterparties send (a field we do not need never refuses a message; a
// field we need that does not fit refuses it with its path, never its value). Published shapes: the type definitions
// and README of `@sygna/bridge-util` 2.0.0; `cancel`, `cdd` and the address-validation question are designed in the
// same signed style (docs/providers/provider_e.md).
import { networkOfCurrency, type CurrencyPlatform } from "../../../domain/provider_e/currencies.ts";

/** Part 3 Contract: `{provider_e_test_url}`, `{provider_e_live_url}`; the documented bases, versioned. */
export const DEFAULT_BASE = { test: "https://test-api.sygna.io/v2", live: "https://api.sygna.io/v2" } as const;

export const PATH = {
  vasps: "/bridge/vasp",
  currencies: "/bridge/transaction/currencies",
  permissionRequest: "/bridge/transaction/permission-request",
  permission: "/bridge/transaction/permission",
  status: "/bridge/transaction/status",
  txid: "/bridge/transaction/txid",
  retry: "/bridge/transaction/retry",
  cancel: "/bridge/transaction/cancel",
  cdd: "/bridge/transaction/cdd",
  addressValidation: "/bridge/vasp/address-validation",
} as const;

export const TRANSFER_ID = /^[0-9a-f]{64}$/;
export const REJECT_CODES = ["BVRC001", "BVRC002", "BVRC003", "BVRC004", "BVRC005", "BVRC006", "BVRC007", "BVRC999"] as const;

type Rec = Record<string, unknown>;
export const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): v is string => typeof v === "string" && v.length > 0;

/** A reader's answer: the value, or the path of the first field that does not fit. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; path: string };
const bad = (path: string): { ok: false; path: string } => ({ ok: false, path });

// ---- directory -------------------------------------------------------------------------------------------------

/** A directory entry (2.x: also `vasp_server_status`, `last_server_checked_at`, `regulatoryStatus`, tolerated). */
export interface DirectoryVasp {
  vasp_code: string;
  vasp_name: string;
  vasp_pubkey: string;
  [extra: string]: unknown;
}
export interface DirectoryAnswer {
  vasp_data: DirectoryVasp[];
  timestamp: number;
  signature: string;
}

export function readDirectory(v: unknown): Parsed<DirectoryAnswer> {
  if (!isRec(v)) return bad("");
  if (!Array.isArray(v.vasp_data)) return bad("vasp_data");
  if (typeof v.timestamp !== "number") return bad("timestamp");
  if (!str(v.signature)) return bad("signature");
  for (const [i, e] of v.vasp_data.entries()) {
    if (!isRec(e)) return bad(`vasp_data[${i}]`);
    if (!str(e.vasp_code)) return bad(`vasp_data[${i}].vasp_code`);
    if (typeof e.vasp_name !== "string") return bad(`vasp_data[${i}].vasp_name`);
    if (!str(e.vasp_pubkey)) return bad(`vasp_data[${i}].vasp_pubkey`);
  }
  return { ok: true, value: v as unknown as DirectoryAnswer };
}

// ---- currencies ------------------------------------------------------------------------------------------------

/** A supported coin as published (`platform` names a token's chain; null for a native coin), and its Caravan network. */
export interface Currency {
  currency_id: string;
  currency_symbol: string;
  currency_name: string;
  is_active: boolean;
  /** The names of the extra fields an address of this currency takes (for example `["tag"]`). */
  addr_extra_info: string[] | null;
  platform: CurrencyPlatform | null;
  /** Ours: the Caravan network the currency lives on (null when none we know). */
  network: string | null;
}

export function readCurrencies(v: unknown): Parsed<Currency[]> {
  if (!isRec(v) || !Array.isArray(v.supported_coins)) return bad("supported_coins");
  const out: Currency[] = [];
  for (const [i, c] of v.supported_coins.entries()) {
    const p = `supported_coins[${i}]`;
    if (!isRec(c)) return bad(p);
    if (!str(c.currency_id)) return bad(`${p}.currency_id`);
    if (!str(c.currency_symbol)) return bad(`${p}.currency_symbol`);
    if (typeof c.is_active !== "boolean") return bad(`${p}.is_active`);
    const platform = c.platform === undefined || c.platform === null ? null : isRec(c.platform) ? (c.platform as CurrencyPlatform) : undefined;
    if (platform === undefined) return bad(`${p}.platform`);
    const extra = Array.isArray(c.addr_extra_info) ? c.addr_extra_info.filter((x): x is string => typeof x === "string") : null;
    out.push({
      currency_id: c.currency_id,
      currency_symbol: c.currency_symbol,
      currency_name: typeof c.currency_name === "string" ? c.currency_name : c.currency_symbol,
      is_active: c.is_active,
      addr_extra_info: extra,
      platform,
      network: networkOfCurrency(c.currency_id, platform),
    });
  }
  return { ok: true, value: out };
}

// ---- transaction -----------------------------------------------------------------------------------------------

/** An address with its extra information (`[{ tag: "123" }]`, `[{ memo_text: "…" }]`; a string list is tolerated). */
export interface Address {
  address: string;
  addr_extra_info?: unknown;
}
export interface VaspSide {
  vasp_code: string;
  addrs: Address[];
}
/** The v2 `transaction` of a permission request. */
export interface Transaction {
  originator_vasp: VaspSide;
  beneficiary_vasp: VaspSide;
  currency_id: string;
  amount?: string;
}

/** One side's address in the utility's key order: `address`, then `addr_extra_info`. */
const address = (a: string, extra: Rec[]): Address => ({ address: a, addr_extra_info: extra });

/**
 * The transaction we sign, in the key order of the utility's README: `originator_vasp { vasp_code, addrs }`,
 * `beneficiary_vasp { vasp_code, addrs }`, `currency_id`, `amount`.
 */
export function buildTransaction(t: { originatorCode: string; originatorAddress: string; beneficiaryCode: string; beneficiaryAddress: string; beneficiaryExtra: Rec[]; currencyId: string; amount: string }): Transaction {
  return {
    originator_vasp: { vasp_code: t.originatorCode, addrs: [address(t.originatorAddress, [])] },
    beneficiary_vasp: { vasp_code: t.beneficiaryCode, addrs: [address(t.beneficiaryAddress, t.beneficiaryExtra)] },
    currency_id: t.currencyId,
    amount: t.amount,
  };
}

function readSide(v: unknown, path: string): Parsed<VaspSide> {
  if (!isRec(v)) return bad(path);
  if (!str(v.vasp_code)) return bad(`${path}.vasp_code`);
  if (!Array.isArray(v.addrs) || v.addrs.length === 0) return bad(`${path}.addrs`);
  for (const [i, a] of v.addrs.entries()) {
    if (!isRec(a) || !str(a.address)) return bad(`${path}.addrs[${i}].address`);
    const x = a.addr_extra_info;
    if (x !== undefined && x !== null && typeof x !== "object") return bad(`${path}.addrs[${i}].addr_extra_info`);
  }
  return { ok: true, value: v as unknown as VaspSide };
}

/** A v2 transaction; `amount` required when `needAmount` (a transfer cannot be created without it). */
export function readTransaction(v: unknown, path = "transaction", needAmount = true): Parsed<Transaction> {
  if (!isRec(v)) return bad(path);
  const o = readSide(v.originator_vasp, `${path}.originator_vasp`);
  if (!o.ok) return o;
  const b = readSide(v.beneficiary_vasp, `${path}.beneficiary_vasp`);
  if (!b.ok) return b;
  if (!str(v.currency_id)) return bad(`${path}.currency_id`);
  if (needAmount ? !str(v.amount) || !/^\d+(\.\d+)?$/.test(v.amount) : v.amount !== undefined && typeof v.amount !== "string") return bad(`${path}.amount`);
  return { ok: true, value: v as unknown as Transaction };
}

/** The extra information of an address as a memo/tag value: the first string in it, else null. */
export function memoOf(extra: unknown): string | null {
  const list = Array.isArray(extra) ? extra : isRec(extra) ? [extra] : [];
  for (const e of list) {
    if (typeof e === "string" && e !== "") return e;
    if (isRec(e)) for (const x of Object.values(e)) if ((typeof x === "string" && x !== "") || typeof x === "number") return String(x);
  }
  return null;
}

/** Whether an address carries extra information at all. */
export const hasExtra = (extra: unknown): boolean => memoOf(extra) !== null;

/** A memo travels as `addr_extra_info: [{ <the currency's extra field name, else "memo">: memo }]`. */
export const extraOf = (memo: string | null, currency?: Pick<Currency, "addr_extra_info"> | null): Rec[] => (memo ? [{ [currency?.addr_extra_info?.[0] ?? "memo"]: memo }] : []);

// ---- permission request ----------------------------------------------------------------------------------------

/** The signed permission request data: `private_info`, `transaction`, `data_dt`, then the optional fields. */
export interface PermissionRequestData {
  private_info: string;
  transaction: Transaction;
  data_dt: string;
  expire_date?: number;
  need_validate_addr?: boolean;
  forced_sending_when_VASP_is_not_healthy?: boolean;
  signature: string;
}

export function readPermissionRequestData(v: unknown, path = "data"): Parsed<PermissionRequestData> {
  if (!isRec(v)) return bad(path);
  if (!str(v.private_info)) return bad(`${path}.private_info`);
  const t = readTransaction(v.transaction, `${path}.transaction`);
  if (!t.ok) return t;
  if (!str(v.data_dt)) return bad(`${path}.data_dt`);
  if (v.expire_date !== undefined && v.expire_date !== null && (typeof v.expire_date !== "number" || !Number.isFinite(v.expire_date))) return bad(`${path}.expire_date`);
  if (!str(v.signature)) return bad(`${path}.signature`);
  return { ok: true, value: v as unknown as PermissionRequestData };
}

// ---- permission (the beneficiary's decision) -------------------------------------------------------------------

/** A decision, key order of the utility's `signPermission`: transfer_id, permission_status, expire_date?, reject_code?, reject_message?. */
export interface Permission {
  transfer_id: string;
  permission_status: "ACCEPTED" | "REJECTED";
  expire_date?: number;
  reject_code?: string;
  reject_message?: string;
  signature: string;
}

export function orderedPermission(p: Omit<Permission, "signature">): Omit<Permission, "signature"> {
  const o: Omit<Permission, "signature"> = { transfer_id: p.transfer_id, permission_status: p.permission_status };
  if (p.expire_date) o.expire_date = p.expire_date;
  if (p.permission_status === "REJECTED") {
    if (p.reject_code) o.reject_code = p.reject_code;
    if (p.reject_message) o.reject_message = p.reject_message;
  }
  return o;
}

export function readPermission(v: unknown): Parsed<Permission> {
  if (!isRec(v)) return bad("");
  if (typeof v.transfer_id !== "string" || !TRANSFER_ID.test(v.transfer_id)) return bad("transfer_id");
  if (v.permission_status !== "ACCEPTED" && v.permission_status !== "REJECTED") return bad("permission_status");
  if (v.expire_date !== undefined && v.expire_date !== null && typeof v.expire_date !== "number") return bad("expire_date");
  if (v.reject_code !== undefined && v.reject_code !== null && typeof v.reject_code !== "string") return bad("reject_code");
  if (!str(v.signature)) return bad("signature");
  return { ok: true, value: v as unknown as Permission };
}

// ---- status ----------------------------------------------------------------------------------------------------

/** The provider's permission status: ACCEPTED, REJECTED, CANCELED, or null before a decision (other values: no decision). */
export type ProviderStatus = "ACCEPTED" | "REJECTED" | "CANCELED" | null;

/**
 * `GET /bridge/transaction/status` → `{ transferData, signature }`, signed by the bridge. `transferData` as published:
 * transfer_id, transaction, data_dt, permission_request_data_signature, permission_status, permission_signature,
 * txid_signature, created_at, transfer_to_originator_time. Read when present (older bridges and our designed
 * extensions): txid, expire_date, reject_code, reject_message, cancel_signature, cdd.
 */
export interface TransferData {
  transfer_id: string;
  transaction: Transaction | null;
  data_dt?: string;
  permission_request_data_signature: string | null;
  permission_status: ProviderStatus;
  permission_signature: string | null;
  txid_signature: string | null;
  created_at: string | null;
  transfer_to_originator_time: string | null;
  private_info?: string | null;
  txid?: string | null;
  expire_date?: number;
  reject_code?: string | null;
  reject_message?: string | null;
  cancel_signature?: string | null;
  cdd?: { message_id: string; signature: string }[];
  [extra: string]: unknown;
}
export interface StatusAnswer {
  transferData: TransferData;
  signature: string;
}

const nullableStr = (v: unknown) => v === undefined || v === null || typeof v === "string";

/** The status answer; `permission_status` values other than the three known ones read as no decision. */
export function readStatus(v: unknown): Parsed<StatusAnswer> {
  if (!isRec(v)) return bad("");
  if (!str(v.signature)) return bad("signature");
  const d = v.transferData;
  if (!isRec(d)) return bad("transferData");
  if (typeof d.transfer_id !== "string" || !TRANSFER_ID.test(d.transfer_id)) return bad("transferData.transfer_id");
  if (d.transaction !== null && d.transaction !== undefined) {
    const t = readTransaction(d.transaction, "transferData.transaction", false);
    if (!t.ok) return t;
  }
  for (const k of ["permission_request_data_signature", "permission_signature", "txid_signature", "txid", "reject_code", "cancel_signature"]) if (!nullableStr(d[k])) return bad(`transferData.${k}`);
  if (!nullableStr(d.permission_status)) return bad("transferData.permission_status");
  if (d.expire_date !== undefined && d.expire_date !== null && typeof d.expire_date !== "number") return bad("transferData.expire_date");
  if (d.cdd !== undefined && !(Array.isArray(d.cdd) && d.cdd.every((m) => isRec(m) && typeof m.message_id === "string" && typeof m.signature === "string"))) return bad("transferData.cdd");
  // The signed object is kept exactly as received (the signature is checked over it); normalised reads are views.
  return { ok: true, value: v as unknown as StatusAnswer };
}

/** The known decision in a status, else null. */
export function statusOf(d: TransferData): ProviderStatus {
  const s = d.permission_status;
  return s === "ACCEPTED" || s === "REJECTED" || s === "CANCELED" ? s : null;
}

// ---- address validation ----------------------------------------------------------------------------------------

/** What answering an address question needs: the VASP asked, the currency and the addresses (extra fields tolerated). */
export interface AddressQuestion {
  vasp_code: string;
  currency_id: string;
  addrs: Address[];
  signature: string;
}
export interface AddressAnswer {
  vasp_code: string;
  currency_id?: string;
  addrs: Address[];
  is_valid: boolean;
  signature: string;
}

export function readAddressQuestion(v: unknown): Parsed<AddressQuestion> {
  if (!isRec(v)) return bad("");
  if (!str(v.vasp_code)) return bad("vasp_code");
  if (!str(v.currency_id)) return bad("currency_id");
  if (!Array.isArray(v.addrs) || v.addrs.length === 0 || v.addrs.length > 100) return bad("addrs");
  for (const [i, a] of v.addrs.entries()) if (!isRec(a) || !str(a.address)) return bad(`addrs[${i}].address`);
  if (!str(v.signature)) return bad("signature");
  return { ok: true, value: v as unknown as AddressQuestion };
}

export function readAddressAnswer(v: unknown): Parsed<AddressAnswer> {
  if (!isRec(v)) return bad("");
  if (!str(v.vasp_code)) return bad("vasp_code");
  if (typeof v.is_valid !== "boolean") return bad("is_valid");
  if (!Array.isArray(v.addrs)) return bad("addrs");
  for (const [i, a] of v.addrs.entries()) if (!isRec(a) || !str(a.address)) return bad(`addrs[${i}].address`);
  if (!str(v.signature)) return bad("signature");
  return { ok: true, value: v as unknown as AddressAnswer };
}

// ---- private info (what we send) -------------------------------------------------------------------------------

/** The IVMS101 we encrypt into `private_info`: the 2020 edition in its camelCase JSON spelling. */
export interface PrivateInfo {
  originator: { originatorPersons: unknown[]; accountNumber: string[] };
  beneficiary: { beneficiaryPersons: unknown[]; accountNumber: string[] };
  originatingVASP: { originatingVASP: unknown };
}

// ---- information messages (designed) ---------------------------------------------------------------------------

/** An information message: relayed by the bridge to the counterparty, signed by its sender. */
export interface CddMessage {
  transfer_id: string;
  message_id: string;
  type: "REQUEST_CDD" | "RESPOND_CDD" | "POST_CDD";
  in_reply_to?: string;
  private_info: string;
  data_dt: string;
  signature: string;
}

export function readCdd(v: unknown): Parsed<CddMessage> {
  if (!isRec(v)) return bad("");
  if (typeof v.transfer_id !== "string" || !TRANSFER_ID.test(v.transfer_id)) return bad("transfer_id");
  if (!str(v.message_id) || v.message_id.length > 100) return bad("message_id");
  if (v.type !== "REQUEST_CDD" && v.type !== "RESPOND_CDD" && v.type !== "POST_CDD") return bad("type");
  if (v.in_reply_to !== undefined && typeof v.in_reply_to !== "string") return bad("in_reply_to");
  if (!str(v.private_info)) return bad("private_info");
  if (!str(v.data_dt)) return bad("data_dt");
  if (!str(v.signature)) return bad("signature");
  return { ok: true, value: v as unknown as CddMessage };
}
