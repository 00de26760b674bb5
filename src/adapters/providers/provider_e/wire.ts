// provider_e (Sygna Bridge) wire shapes: paths, signed bodies in the provider's key order, readers of its answers.
// Real shapes (PROVIDERS.md, @sygna/bridge-util 2.x) where they exist; `cancel`, `cdd` and the address-validation
// question are designed in the same signed style (docs/providers/provider_e.md).
import type { Person } from "../../../domain/ivms101/index.ts";

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

export interface DirectoryVasp {
  vasp_code: string;
  vasp_name: string;
  vasp_pubkey: string;
  is_healthy?: boolean;
}
export interface DirectoryAnswer {
  vasp_data: DirectoryVasp[];
  timestamp: number;
  signature: string;
}

export function readDirectory(v: unknown): DirectoryAnswer | null {
  if (!isRec(v) || !Array.isArray(v.vasp_data) || typeof v.timestamp !== "number" || !str(v.signature)) return null;
  for (const e of v.vasp_data) if (!isRec(e) || !str(e.vasp_code) || typeof e.vasp_name !== "string" || !str(e.vasp_pubkey)) return null;
  return v as unknown as DirectoryAnswer;
}

export interface Currency {
  currency_id: string;
  currency_symbol: string;
  currency_name: string;
  is_active: boolean;
  addr_extra_info: string[] | null;
  /** The network the currency lives on (Caravan network name). */
  platform: string;
}

export function readCurrencies(v: unknown): Currency[] | null {
  if (!isRec(v) || !Array.isArray(v.supported_coins)) return null;
  for (const c of v.supported_coins) if (!isRec(c) || !str(c.currency_id) || !str(c.currency_symbol) || typeof c.is_active !== "boolean") return null;
  return v.supported_coins as Currency[];
}

/** The permission request's `transaction`, in the provider's key order (sortPermissionRequestData). */
export interface Transaction {
  originator_vasp_code: string;
  originator_addrs: string[];
  originator_addrs_extra?: Rec;
  beneficiary_vasp_code: string;
  beneficiary_addrs: string[];
  beneficiary_addrs_extra?: Rec;
  transaction_currency: string;
  amount: string;
  platform?: string;
}

export function orderedTransaction(t: Transaction): Transaction {
  const o: Transaction = { originator_vasp_code: t.originator_vasp_code, originator_addrs: t.originator_addrs } as Transaction;
  if (t.originator_addrs_extra) o.originator_addrs_extra = t.originator_addrs_extra;
  o.beneficiary_vasp_code = t.beneficiary_vasp_code;
  o.beneficiary_addrs = t.beneficiary_addrs;
  if (t.beneficiary_addrs_extra) o.beneficiary_addrs_extra = t.beneficiary_addrs_extra;
  o.transaction_currency = t.transaction_currency;
  o.amount = t.amount;
  if (t.platform !== undefined) o.platform = t.platform;
  return o;
}

export function readTransaction(v: unknown): Transaction | null {
  if (!isRec(v)) return null;
  if (!str(v.originator_vasp_code) || !str(v.beneficiary_vasp_code) || !str(v.transaction_currency) || !str(v.amount)) return null;
  if (!Array.isArray(v.originator_addrs) || !v.originator_addrs.every(str) || !Array.isArray(v.beneficiary_addrs) || !v.beneficiary_addrs.every(str)) return null;
  if (v.originator_addrs_extra !== undefined && !isRec(v.originator_addrs_extra)) return null;
  if (v.beneficiary_addrs_extra !== undefined && !isRec(v.beneficiary_addrs_extra)) return null;
  if (v.platform !== undefined && typeof v.platform !== "string") return null;
  return v as unknown as Transaction;
}

/** The signed permission request data (sortPermissionRequestData plus the fields Part 3 names). */
export interface PermissionRequestData {
  private_info: string;
  transaction: Transaction;
  data_dt: string;
  expire_date?: number;
  need_validate_addr?: boolean;
  forced_sending_when_VASP_is_not_healthy?: boolean;
  signature: string;
}

export function readPermissionRequestData(v: unknown): PermissionRequestData | null {
  if (!isRec(v) || !str(v.private_info) || !str(v.data_dt) || !str(v.signature)) return null;
  if (!readTransaction(v.transaction)) return null;
  if (v.expire_date !== undefined && (typeof v.expire_date !== "number" || !Number.isFinite(v.expire_date))) return null;
  return v as unknown as PermissionRequestData;
}

/** A decision (sortPermissionData): transfer_id, permission_status, expire_date?, reject_code?, reject_message?. */
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

export function readPermission(v: unknown): Permission | null {
  if (!isRec(v) || typeof v.transfer_id !== "string" || !TRANSFER_ID.test(v.transfer_id) || !str(v.signature)) return null;
  if (v.permission_status !== "ACCEPTED" && v.permission_status !== "REJECTED") return null;
  if (v.expire_date !== undefined && typeof v.expire_date !== "number") return null;
  if (v.reject_code !== undefined && typeof v.reject_code !== "string") return null;
  if (v.reject_message !== undefined && typeof v.reject_message !== "string") return null;
  return v as unknown as Permission;
}

export type ProviderStatus = "ACCEPTED" | "REJECTED" | "CANCELED" | null;

/** `GET /bridge/transaction/status` (res_get_transfer_status), signed by the bridge; `cdd` lists the messages relayed. */
export interface TransferData {
  transfer_id: string;
  private_info: string | null;
  transaction: Transaction | null;
  data_dt?: string;
  permission_request_data_signature: string | null;
  permission_status: ProviderStatus;
  permission_signature: string | null;
  txid: string | null;
  txid_signature: string | null;
  created_at: string | null;
  transfer_to_originator_time: string | null;
  expire_date?: number;
  reject_code?: string | null;
  reject_message?: string | null;
  cancel_signature?: string | null;
  cdd?: { message_id: string; signature: string }[];
}
export interface StatusAnswer {
  transferData: TransferData;
  signature: string;
}

export function readStatus(v: unknown): StatusAnswer | null {
  if (!isRec(v) || !str(v.signature) || !isRec(v.transferData)) return null;
  const d = v.transferData;
  if (typeof d.transfer_id !== "string" || !TRANSFER_ID.test(d.transfer_id)) return null;
  if (d.permission_status !== null && d.permission_status !== "ACCEPTED" && d.permission_status !== "REJECTED" && d.permission_status !== "CANCELED") return null;
  if (d.transaction !== null && !readTransaction(d.transaction)) return null;
  return v as unknown as StatusAnswer;
}

/** The address-validation question (designed): the asker's VASP, the one asked, the currency and addresses. */
export interface AddressQuestion {
  originator_vasp_code: string;
  vasp_code: string;
  currency_id: string;
  addrs: { address: string; addr_extra_info: Rec[] }[];
  data_dt: string;
  signature: string;
}
export interface AddressAnswer {
  vasp_code: string;
  currency_id: string;
  addrs: { address: string; addr_extra_info: Rec[] }[];
  is_valid: boolean;
  signature: string;
}

export function readAddressQuestion(v: unknown): AddressQuestion | null {
  if (!isRec(v) || !str(v.originator_vasp_code) || !str(v.vasp_code) || !str(v.currency_id) || !str(v.signature) || !Array.isArray(v.addrs) || v.addrs.length === 0) return null;
  for (const a of v.addrs) if (!isRec(a) || !str(a.address) || (a.addr_extra_info !== undefined && !Array.isArray(a.addr_extra_info))) return null;
  return v as unknown as AddressQuestion;
}

export function readAddressAnswer(v: unknown): AddressAnswer | null {
  if (!isRec(v) || !str(v.vasp_code) || !str(v.currency_id) || typeof v.is_valid !== "boolean" || !str(v.signature) || !Array.isArray(v.addrs)) return null;
  for (const a of v.addrs) if (!isRec(a) || !str(a.address)) return null;
  return v as unknown as AddressAnswer;
}

/** A memo travels as `addr_extra_info: [{ memo }]` beside its address (designed; Sygna lists extra info per address). */
export const extraOf = (memo: string | null): Rec[] => (memo ? [{ memo }] : []);

/** The canonical registry form `addr?dt=1` / `addr?memo=x` split into address and memo. */
export function destination(canonical: string): { address: string; memo: string | null } {
  const q = canonical.indexOf("?");
  if (q < 0) return { address: canonical, memo: null };
  const v = new URLSearchParams(canonical.slice(q + 1));
  return { address: canonical.slice(0, q), memo: v.get("dt") ?? v.get("memo") ?? v.get("tag") };
}

/** The IVMS101 plaintext of `private_info` (Sygna 2.x: camelCase IVMS101 top level). */
export interface PrivateInfo {
  originator: { originatorPersons: Person[]; accountNumber: string[] };
  beneficiary: { beneficiaryPersons: Person[]; accountNumber: string[] };
  originatingVASP: { originatingVASP: Person };
}

export function readPrivateInfo(v: unknown): PrivateInfo | null {
  if (!isRec(v) || !isRec(v.originator) || !isRec(v.beneficiary)) return null;
  const o = v.originator;
  const b = v.beneficiary;
  if (!Array.isArray(o.originatorPersons) || !Array.isArray(o.accountNumber) || !Array.isArray(b.beneficiaryPersons) || !Array.isArray(b.accountNumber)) return null;
  return v as unknown as PrivateInfo;
}

/** An information message (designed): relayed by the bridge to the counterparty, signed by its sender. */
export interface CddMessage {
  transfer_id: string;
  message_id: string;
  type: "REQUEST_CDD" | "RESPOND_CDD" | "POST_CDD";
  in_reply_to?: string;
  private_info: string;
  data_dt: string;
  signature: string;
}

export function readCdd(v: unknown): CddMessage | null {
  if (!isRec(v) || typeof v.transfer_id !== "string" || !TRANSFER_ID.test(v.transfer_id) || !str(v.message_id) || v.message_id.length > 100 || !str(v.private_info) || !str(v.data_dt) || !str(v.signature)) return null;
  if (v.type !== "REQUEST_CDD" && v.type !== "RESPOND_CDD" && v.type !== "POST_CDD") return null;
  if (v.in_reply_to !== undefined && typeof v.in_reply_to !== "string") return null;
  return v as unknown as CddMessage;
}
