// The sandbox bridge's own reading of Sygna Bridge v2 messages, written from the published references (the type
// definitions and README of `@sygna/bridge-util` 2.0.0), independent of Caravan's adapter: the nested `transaction`,
// the status answer's `transferData`, currencies with `platform`, directory entries. Loose on purpose: the bridge
// checks signatures with the utility, and refuses only what it cannot relay.

export type Rec = Record<string, unknown>;
export const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** `Address` of the type definitions: the address and its extra information (`[{ tag }]`, `[{ memo_text }]`). */
export interface SygnaAddress {
  address: string;
  addr_extra_info?: unknown;
}

/** `Transaction` of the type definitions (v2). */
export interface SygnaTransaction {
  originator_vasp: { vasp_code: string; addrs: SygnaAddress[] };
  beneficiary_vasp: { vasp_code: string; addrs: SygnaAddress[] };
  currency_id: string;
  amount?: string;
}

/** `Currency` of the type definitions. */
export interface SygnaCurrency {
  currency_id: string;
  currency_name: string;
  currency_symbol: string;
  is_active: boolean;
  addr_extra_info: string[];
  platform: { id: string; name: string; symbol: string; token_address: string } | null;
}

export type PermissionStatus = "ACCEPTED" | "REJECTED" | "CANCELED" | null;

/** `TransferDataResponse.transferData` as published, plus what this bridge also keeps (listed after, tolerated by readers). */
export interface SygnaTransferData {
  transfer_id: string;
  transaction: SygnaTransaction;
  data_dt: string;
  permission_request_data_signature: string;
  permission_status: PermissionStatus;
  permission_signature: string | null;
  txid_signature: string | null;
  created_at: string;
  transfer_to_originator_time: string | null;
  // Kept by this bridge besides the published fields:
  private_info: string;
  txid: string | null;
  expire_date?: number;
  reject_code?: string | null;
  reject_message?: string | null;
  cancel_signature?: string | null;
  cdd?: { message_id: string; signature: string }[];
}

export function readTransaction(v: unknown): SygnaTransaction | null {
  if (!isRec(v)) return null;
  for (const side of [v.originator_vasp, v.beneficiary_vasp]) {
    if (!isRec(side) || typeof side.vasp_code !== "string" || !Array.isArray(side.addrs) || side.addrs.length === 0) return null;
    if (!side.addrs.every((a) => isRec(a) && typeof a.address === "string")) return null;
  }
  if (typeof v.currency_id !== "string") return null;
  return v as unknown as SygnaTransaction;
}

/** `signPermissionRequest` data: private_info, transaction, data_dt, then optional fields, then signature. */
export function readPermissionRequest(v: unknown): { private_info: string; transaction: SygnaTransaction; data_dt: string; expire_date?: number; signature: string } | null {
  if (!isRec(v) || typeof v.private_info !== "string" || typeof v.data_dt !== "string" || typeof v.signature !== "string") return null;
  if (!readTransaction(v.transaction)) return null;
  if (v.expire_date !== undefined && typeof v.expire_date !== "number") return null;
  return v as never;
}

/** The designed address question (Caravan asks): who asks, whom, which currency, which addresses. */
export function readAddressQuestion(v: unknown): { originator_vasp_code?: string; vasp_code: string; currency_id: string; addrs: SygnaAddress[]; signature: string } | null {
  if (!isRec(v) || typeof v.vasp_code !== "string" || typeof v.currency_id !== "string" || typeof v.signature !== "string") return null;
  if (!Array.isArray(v.addrs) || v.addrs.length === 0 || !v.addrs.every((a) => isRec(a) && typeof a.address === "string")) return null;
  return v as never;
}

/** The utility's key order for a decision (`signPermission`): transfer_id, permission_status, then the optional ones. */
export function permissionBody(p: { transfer_id: string; permission_status: "ACCEPTED" | "REJECTED"; expire_date?: number; reject_code?: string; reject_message?: string }): Rec {
  const o: Rec = { transfer_id: p.transfer_id, permission_status: p.permission_status };
  if (p.expire_date) o.expire_date = p.expire_date;
  if (p.permission_status === "REJECTED") {
    if (p.reject_code) o.reject_code = p.reject_code;
    if (p.reject_message) o.reject_message = p.reject_message;
  }
  return o;
}

/** IVMS101 in the snake_case rendering some peers send (`originator_persons`, `natural_person`, `name_identifiers`). */
const SNAKE_IRREGULAR: Record<string, string> = {
  nameIdentifier: "name_identifiers",
  localNameIdentifier: "local_name_identifiers",
  phoneticNameIdentifier: "phonetic_name_identifiers",
  geographicAddress: "geographic_addresses",
  originatingVASP: "originating_vasp",
  beneficiaryVASP: "beneficiary_vasp",
};
export function toSnake(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toSnake);
  if (!isRec(v)) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [SNAKE_IRREGULAR[k] ?? k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), toSnake(x)]));
}
