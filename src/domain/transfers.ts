// Transfer rules without I/O: states, the create body (Part 1 "POST /api/v2/transfers"), amounts, PATCH actions.
import Decimal from "decimal.js";
import { validatePersons, type Person } from "./ivms101/index.ts";

export const TRANSFER_STATES = ["created", "queued", "processing", "exchanging", "awaiting_counterparty", "accepted", "rejected", "cancelled", "completed", "failed", "held"] as const;
export type TransferState = (typeof TRANSFER_STATES)[number];
/** States a transfer never leaves: erasure of its customer is allowed once every transfer is in one. */
export const FINAL_STATES: readonly TransferState[] = ["completed", "rejected", "cancelled"];
export const VERDICTS = ["pending", "approved", "rejected"] as const;
export type Verdict = (typeof VERDICTS)[number];
export const SIDE_STATUSES = ["pending", "accepted", "rejected"] as const;
export const PROTOCOLS = ["provider_a", "provider_b", "provider_c", "provider_d", "provider_e"] as const;
export type Protocol = (typeof PROTOCOLS)[number];
export const REJECT_REASONS = ["BENE_NOT_FOUND", "BENE_NAME_MISMATCH", "SANCTIONS_MATCH", "HIGH_RISK", "COMPLIANCE_POLICY", "INVALID_DATA", "EXPIRED", "OTHER"] as const;
export const ACTIONS = ["accept", "reject", "retry"] as const;
export const SCHEMA_NAME = "create-transfer";

export interface CreateTransferInput {
  asset: string;
  amount: string;
  network: string;
  originatorCustomerId: string;
  originatorAddress: string | null;
  beneficiaryAddress: string;
  originatorPersons: Person[];
  beneficiaryPersons: Person[];
  preferredProtocol: Protocol | null;
  isUnhostedWallet: boolean;
}

const FIELDS = ["asset", "amount", "network", "originatorCustomerId", "originatorAddress", "beneficiaryAddress", "originator", "beneficiary", "preferredProtocol", "isUnhostedWallet"];
const chars = (s: string) => Array.from(s).length;

/** Decimal strings only: digits, an optional fraction; no sign, no exponent, no spaces (Part 1: amounts are decimal strings). */
export const AMOUNT = /^(0|[1-9]\d{0,29})(\.\d{1,36})?$/;

export function decimalsOf(amount: string): number {
  const dot = amount.indexOf(".");
  return dot < 0 ? 0 : amount.length - dot - 1;
}

/** Every problem as `field: message` (Part 1: details.validationErrors). */
export function validateCreateTransfer(body: unknown, today?: string): { ok: true; value: CreateTransferInput } | { ok: false; errors: string[] } {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return { ok: false, errors: ["body: must be a JSON object"] };
  const b = body as Record<string, unknown>;
  const errors: string[] = [];
  for (const k of Object.keys(b)) {
    if (k === "beneficiaryVaspId") errors.push("beneficiaryVaspId: is not accepted; the service discovers the beneficiary VASP");
    else if (!FIELDS.includes(k)) errors.push(`${k}: is not an accepted field`);
  }
  const text = (name: string, required: boolean, max: number): string | null => {
    const v = b[name];
    if (v === undefined || v === null) {
      if (required) errors.push(`${name}: is required`);
      return null;
    }
    if (typeof v !== "string") return errors.push(`${name}: must be a string`), null;
    if (v.trim() === "") return errors.push(`${name}: must not be empty`), null;
    if (chars(v) > max) return errors.push(`${name}: must be at most ${max} characters`), null;
    return v;
  };
  const asset = text("asset", true, 20);
  const network = text("network", true, 50);
  const originatorCustomerId = text("originatorCustomerId", true, 64);
  const originatorAddress = text("originatorAddress", false, 200);
  const beneficiaryAddress = text("beneficiaryAddress", true, 200);

  let amount: string | null = null;
  if (b.amount === undefined || b.amount === null) errors.push("amount: is required");
  else if (typeof b.amount !== "string") errors.push("amount: must be a decimal string such as \"12.5\"");
  else if (!AMOUNT.test(b.amount)) errors.push("amount: must be a decimal string of digits with an optional fraction (no sign, exponent or spaces)");
  else if (new Decimal(b.amount).lte(0)) errors.push("amount: must be greater than 0");
  else amount = b.amount;

  const persons = (name: "originator" | "beneficiary", listName: string, required: boolean): Person[] => {
    const v = b[name];
    if (v === undefined || v === null) {
      if (required) errors.push(`${name}: is required`);
      return [];
    }
    if (typeof v !== "object" || Array.isArray(v)) return errors.push(`${name}: must be an object with ${listName}`), [];
    const extra = Object.keys(v).filter((k) => k !== listName);
    for (const k of extra) errors.push(`${name}.${k}: is not an accepted field`);
    const list = (v as Record<string, unknown>)[listName];
    if (list === undefined) return errors.push(`${name}.${listName}: is required`), [];
    const issues = validatePersons(list, today ? { today } : {});
    for (const i of issues) errors.push(`${name}.${listName}${i.path.replace(/^persons/, "")}: ${i.message}`);
    return issues.length ? [] : (list as Person[]);
  };
  const originatorPersons = persons("originator", "originatorPersons", true);
  const beneficiaryPersons = persons("beneficiary", "beneficiaryPersons", false);

  let preferredProtocol: Protocol | null = null;
  if (b.preferredProtocol !== undefined && b.preferredProtocol !== null) {
    if (typeof b.preferredProtocol !== "string" || !(PROTOCOLS as readonly string[]).includes(b.preferredProtocol))
      errors.push(`preferredProtocol: must be one of ${PROTOCOLS.join(", ")}`);
    else preferredProtocol = b.preferredProtocol as Protocol;
  }
  if (b.isUnhostedWallet !== undefined && b.isUnhostedWallet !== null && typeof b.isUnhostedWallet !== "boolean") errors.push("isUnhostedWallet: must be true or false");

  if (errors.length) return { ok: false, errors };
  return {
    ok: true,
    value: {
      asset: asset!,
      amount: amount!,
      network: network!,
      originatorCustomerId: originatorCustomerId!,
      originatorAddress,
      beneficiaryAddress: beneficiaryAddress!,
      originatorPersons,
      beneficiaryPersons,
      preferredProtocol,
      isUnhostedWallet: b.isUnhostedWallet === true,
    },
  };
}

/** States an outgoing transfer can be in before any provider has taken it (its `protocol` still null). */
export const UNTAKEN_STATES: readonly TransferState[] = ["queued", "processing", "held"];

/**
 * An outgoing transfer no provider has taken, past its `expiresAt` at `now` (ms): it is cancelled. A transfer a
 * provider took (protocol set) follows that provider's rules instead; a failed one stays failed.
 */
export function isUntakenExpired(t: { direction: string; state: string; protocol: string | null; expiresAt: string | null }, now: number): boolean {
  return (
    t.direction === "outgoing" &&
    t.protocol === null &&
    (UNTAKEN_STATES as readonly string[]).includes(t.state) &&
    t.expiresAt !== null &&
    Date.parse(t.expiresAt) <= now
  );
}

/**
 * Providers whose `failed` transfers no action moves on (Part 3): provider_a's cannot be retried, nor rejected when
 * outgoing or not held; provider_b's are never resent and never rejected (a submission whose outcome is unknown, an
 * incoming transfer its originator cancelled after reporting its transaction). Such a transfer is closed
 * (`cancelled`) once it has waited `STUCK_FAILED_MS` unchanged and its `expiresAt`, if any, has passed, so a
 * customer's erasure, which waits for every transfer to be final, is never blocked for ever.
 */
export const STUCK_FAILED_PROTOCOLS: readonly Protocol[] = ["provider_a", "provider_b"];
export const STUCK_FAILED_MS = 24 * 60 * 60 * 1000;

export function isStuckFailedExpired(t: { state: string; protocol: string | null; expiresAt: string | null; updatedAt: string }, now: number): boolean {
  return (
    t.state === "failed" &&
    t.protocol !== null &&
    (STUCK_FAILED_PROTOCOLS as readonly string[]).includes(t.protocol) &&
    (t.expiresAt === null || Date.parse(t.expiresAt) <= now) &&
    Date.parse(t.updatedAt) + STUCK_FAILED_MS <= now
  );
}

/** A 32-byte hexadecimal hash with or without 0x (Part 1, accept). */
export function isTxHash(s: string): boolean {
  return /^(0x)?[0-9a-fA-F]{64}$/.test(s);
}

/** checksLimit 1 to 200, default 50: out of range → nearest bound; non-number or 0 → default (Part 1). */
export function readChecksLimit(raw: string | undefined): number {
  if (raw === undefined || !/^-?\d+$/.test(raw.trim())) return 50;
  const n = Number(raw.trim());
  if (n === 0 || !Number.isFinite(n)) return 50;
  return Math.min(200, Math.max(1, n));
}

export function readChecksOffset(raw: string | undefined): number {
  if (raw === undefined || !/^\d+$/.test(raw.trim())) return 0;
  return Math.min(Number(raw.trim()), Number.MAX_SAFE_INTEGER);
}
