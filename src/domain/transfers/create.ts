// The create decision of an outgoing transfer, without I/O: given the originator customer and wallet as the
// customer's actor reads them, the providers' verdicts, the valuation and the applicable threshold, either the
// transfer to create (completed below the threshold, queued with an expiry at or above it) or the refusal.
import Decimal from "decimal.js";
import { iso } from "../ids.ts";
import { SCHEMA_NAME, type CreateTransferInput, type Protocol } from "../transfers.ts";

/** Part 3: `expiresAt` is set 24 hours after creation on a transfer that goes through a Travel Rule exchange. */
export const EXPIRY_MS = 24 * 60 * 60 * 1000;

/** The Travel Rule threshold that applies to the company now (Part 2, thresholds with FATF fallbacks). */
export interface AppliedThreshold {
  amount: string;
  currency: string;
  jurisdiction: string;
  regulation: string;
}

/** The amount valued in the threshold's currency, and the ID of that valuation. */
export interface Valuation {
  fxRateId: string;
  value: string;
}

/** A provider's verdict on carrying the transfer (enabled, has credentials, supports the asset and data). */
export type ProviderVerdict = { provider: Protocol; ok: true } | { provider: Protocol; ok: false; reason: string };

export interface CreateFacts {
  /** The validated create body. */
  input: CreateTransferInput;
  /** The originator customer as its actor holds it, or undefined when unknown in this environment. */
  customer: { id: string; status: string } | undefined;
  /** The wallet registered at `originatorAddress` (undefined when none is), or null when no address was given. */
  originatorWallet: { customerId: string } | undefined | null;
  /** Every provider's verdict; asked only when the decision needs it (`readsCapabilities`). */
  capabilities: () => readonly ProviderVerdict[];
  valuation: Valuation;
  threshold: AppliedThreshold;
  now: number;
}

/** What the threshold comparison records on the transfer and answers on a completed create (Part 1 `thresholdInfo`). */
export interface ThresholdInfo {
  amount: string;
  asset: string;
  threshold: string;
  thresholdCurrency: string;
  jurisdiction: string;
  regulation: string;
}

export type CreateDecision =
  | { ok: true; outcome: "completed" | "queued"; thresholdInfo: ThresholdInfo; fxRateId: string; expiresAt: string | null }
  | { ok: false; code: "VALIDATION_ERROR"; message: string; details: { schemaName: string } };

/** Whether `decideCreate` asks for the providers' verdicts: a preferred protocol named, or a value at or above the threshold. */
export function readsCapabilities(f: Pick<CreateFacts, "input" | "valuation" | "threshold">): boolean {
  return !!f.input.preferredProtocol || !new Decimal(f.valuation.value).lt(f.threshold.amount);
}

const refused = (message: string): CreateDecision => ({ ok: false, code: "VALIDATION_ERROR", message, details: { schemaName: SCHEMA_NAME } });

/**
 * Part 1 "POST /api/v2/transfers": the originator must be an active customer of the environment and own the
 * originator wallet; a named preferredProtocol must be able to carry the transfer; below the threshold the transfer
 * is completed at once (no exchange, no expiry), otherwise at least one enabled provider must be able to carry it and
 * it is queued, expiring 24 hours later.
 */
export function decideCreate(f: CreateFacts): CreateDecision {
  const { input } = f;
  if (!f.customer) return refused("The originator customer is unknown in this environment");
  if (f.customer.status !== "active") return refused("The originator customer is deactivated");
  if (f.originatorWallet !== null && f.originatorWallet?.customerId !== f.customer.id) return refused("originatorAddress is not a wallet registered to the originator customer");
  let verdicts: readonly ProviderVerdict[] | null = null;
  const capabilities = () => (verdicts ??= f.capabilities());
  if (input.preferredProtocol) {
    const p = capabilities().find((x) => x.provider === input.preferredProtocol);
    if (!p || !p.ok) return refused(`preferredProtocol ${input.preferredProtocol} cannot carry the transfer: ${p && !p.ok ? p.reason : "not enabled"}`);
  }
  const below = new Decimal(f.valuation.value).lt(f.threshold.amount);
  if (!below && !input.preferredProtocol) {
    const caps = capabilities();
    if (!caps.some((x) => x.ok)) return refused(`No enabled provider is able to carry the transfer (${caps.map((x) => (x.ok ? x.provider : x.reason)).join("; ")})`);
  }
  const t = f.threshold;
  return {
    ok: true,
    outcome: below ? "completed" : "queued",
    thresholdInfo: { amount: input.amount, asset: input.asset, threshold: t.amount, thresholdCurrency: t.currency, jurisdiction: t.jurisdiction, regulation: t.regulation },
    fxRateId: f.valuation.fxRateId,
    expiresAt: below ? null : iso(f.now + EXPIRY_MS),
  };
}
