// provider_b callback decisions without I/O (Part 3 "provider_b transfers" Incoming, "provider_b callbacks"): reasonTypes, idempotency, txid, cancellation, status.
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

/** Part 3, provider_b transfers: the `reasonType`s of a `denied` authorization (and an `invalid` address check). */
export type IncomingReason =
  | "NOT_SUPPORTED_SYMBOL"
  | "NOT_FOUND_ADDRESS"
  | "NOT_KYC_USER"
  | "SANCTION_LIST"
  | "INPUT_NAME_MISMATCHED"
  | "LACK_OF_INFORMATION"
  | "UNKNOWN";

/** NOT_FOUND_ADDRESS unless exactly one wallet holds the account (Part 3: "Not exactly one wallet has the account"). */
export function walletReason(walletsFound: number): IncomingReason | null {
  return walletsFound === 1 ? null : "NOT_FOUND_ADDRESS";
}

export interface Holder {
  /** The customer is active (a deactivated or erased customer takes nothing new). */
  customerActive: boolean;
  walletVerified: boolean;
  identityStatus: "verified" | "unverified" | "blocked" | null;
}

/**
 * Part 3: "the wallet must be verified and its customer identity verified" (NOT_KYC_USER); a blocked identity is
 * SANCTION_LIST. A blocked identity is named before an unverified wallet: it is the stronger fact and does not
 * depend on the wallet. A deactivated or erased customer is NOT_KYC_USER (Caravan's decision; the spec is silent).
 */
export function holderReason(h: Holder): IncomingReason | null {
  if (!h.customerActive) return "NOT_KYC_USER";
  if (h.identityStatus === "blocked") return "SANCTION_LIST";
  if (!h.walletVerified) return "NOT_KYC_USER";
  if (h.identityStatus !== "verified") return "NOT_KYC_USER";
  return null;
}

export type Verdict = "approved" | "pending" | "rejected";

/**
 * Part 3: after creation the transfer is screened; "an incoming provider_b transfer is never held for an officer (a
 * verdict needing review is `denied`)": pending → LACK_OF_INFORMATION ("screening needs review"), rejected → UNKNOWN.
 */
export function screeningReason(verdict: Verdict): IncomingReason | null {
  switch (verdict) {
    case "approved":
      return null;
    case "pending":
      return "LACK_OF_INFORMATION";
    case "rejected":
      return "UNKNOWN";
  }
}

// ---------------------------------------------------------------------------------------------
// Idempotency (Part 3, provider_b callbacks): by environment, sender and the provider's transferId.

/** Part 3, Limits: "a request in progress may be reprocessed after 5 minutes". */
export const IN_PROGRESS_RELEASE_MS = 5 * 60_000;

export interface RecordedRequest {
  contentHash: string;
  state: "in_progress" | "done";
  /** ms since epoch. */
  startedAt: number;
}

/**
 * - `new`: nothing recorded; process it.
 * - `replay`: the same request was answered; answer it again (re-encrypted for the sender's current key).
 * - `duplicate`: the transferId was used with other content: 503 DUPLICATE_TRANSFER_ID.
 * - `in_progress`: the same request is being processed: 503 REQUEST_IN_PROGRESS.
 * - `reclaim`: the same request has been in progress for five minutes or more; process it again.
 */
export type ClaimDecision = "new" | "replay" | "duplicate" | "in_progress" | "reclaim";

export function claimDecision(row: RecordedRequest | null, contentHash: string, now: number): ClaimDecision {
  if (!row) return "new";
  if (row.contentHash !== contentHash) return "duplicate";
  if (row.state === "done") return "replay";
  return now - row.startedAt >= IN_PROGRESS_RELEASE_MS ? "reclaim" : "in_progress";
}

/** JSON with object keys sorted at every level: the same content always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * SHA-256 (hex) of a request's content: its fields and the decrypted payload, never the ciphertext, whose random
 * nonce differs on every send; so a retry sealed again, or sealed under the sender's new key, is the same request.
 */
export function contentHash(content: unknown): string {
  return bytesToHex(sha256(utf8ToBytes(canonicalJson(content))));
}

// ---------------------------------------------------------------------------------------------
// After the authorization: transaction reports and cancellations of incoming transfers.

export interface ReportedTx {
  txid: string;
  /** Absent vout is null; compared as text. */
  vout: string | null;
}

export type ResultDecision = { result: "normal" } | { result: "error"; reasonType: string };

/**
 * `POST v1/beneficiary/transfer/txid` on an incoming transfer: the first report of a verified transfer moves it to
 * `accepted` (`record`); the same txid and vout again answers normal; another txid TXID_ALREADY_EXISTS. A transfer
 * that is not a verified one waiting for its transaction (denied or canceled) is UNKNOWN_TRANSFER_ID (Caravan's
 * decision: the spec names no other code, and there is no verified transfer to record it on).
 */
export function txidDecision(state: string, reported: ReportedTx | null, tx: ReportedTx): ResultDecision & { record?: true } {
  if (reported) {
    return reported.txid === tx.txid && reported.vout === tx.vout ? { result: "normal" } : { result: "error", reasonType: "TXID_ALREADY_EXISTS" };
  }
  if (state === "awaiting_counterparty") return { result: "normal", record: true };
  return { result: "error", reasonType: "UNKNOWN_TRANSFER_ID" };
}

/**
 * `PUT v1/vasp/transfer/status` canceled: a verified transfer becomes `rejected`, or `failed` once its transaction was
 * reported, with reason ORIGINATOR_CANCELED (Part 3); a repeat, or a transfer already final, changes nothing.
 */
export function cancelDecision(state: string, reported: ReportedTx | null): { to: "rejected" | "failed" | null } {
  if (state === "awaiting_counterparty" && !reported) return { to: "rejected" };
  if (state === "accepted" || (state === "awaiting_counterparty" && reported)) return { to: "failed" };
  return { to: null };
}

/**
 * `POST v1/vasp/transfer/status` about one of the company's outgoing transfers (Part 3): `processing` once its
 * transaction was reported, `canceled` once it can no longer be sent (rejected, cancelled, failed), else `pending`.
 */
export function outgoingStatus(t: { state: string; txHash: string | null }): "pending" | "processing" | "canceled" {
  if (t.txHash) return "processing";
  if (t.state === "rejected" || t.state === "cancelled" || t.state === "failed") return "canceled";
  return "pending";
}

/** The spellings a hex transaction hash may be stored or asked in (with or without `0x`, any case). */
export function txidVariants(txid: string): string[] {
  const out = new Set([txid]);
  if (/^(0x)?[0-9a-fA-F]+$/.test(txid)) {
    const bare = txid.replace(/^0x/, "");
    for (const h of [bare, bare.toLowerCase(), bare.toUpperCase()]) (out.add(h), out.add(`0x${h}`));
  }
  return [...out];
}
