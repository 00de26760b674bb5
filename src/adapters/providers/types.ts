// The surface every Travel Rule provider adapter shares: capability, discovery, send, transaction report, cancel.
// Outcomes are values (Part 3 refusals), never exceptions: the transfer actor decides without try/catch ladders.
import type { Environment } from "../../domain/types.ts";
import type { Person } from "../../domain/ivms101/index.ts";
import type { Protocol } from "../../domain/transfers.ts";

/** What a provider needs to know to say whether it can carry an outgoing transfer. */
export interface TransferCandidate {
  assetId: string;
  asset: string;
  network: string;
  amount: string;
  beneficiaryPersonCount: number;
  hasOriginatorAddress: boolean;
  /** As stored (a provider_d Travel Address is carried only by provider_d). */
  beneficiaryAddress?: string;
}

/** An outgoing transfer as an adapter sees it: decrypted persons, credentials of its environment. */
export interface OutgoingTransfer {
  id: string;
  companyId: string;
  environment: Environment;
  asset: string;
  assetId: string;
  network: string;
  amount: string;
  originatorAddress: string | null;
  /** Canonical form: address with `?dt=`/`?memo=` when tagged. */
  beneficiaryAddress: string;
  originatorPersons: Person[];
  beneficiaryPersons: Person[];
  /** The valuation in USD (Part 3, provider_b: tradePrice) and whether it reaches the threshold. */
  usdValue: string | null;
  isExceedingThreshold: boolean;
  expiresAt: string | null;
}

/** A counterparty VASP as the provider's directory lists it (kept by the provider connection's actor). */
export interface DirectoryEntry {
  vaspId: string;
  name: string;
  health: "up" | "down";
  publicKey: string | null;
}

/** `datedAt`: the provider's own date of the directory (when it signs one), which can be older than the fetch. */
export type DirectoryRead = { ok: true; vasps: DirectoryEntry[]; fetchedAt: number; datedAt?: number } | { ok: false; code: string };

export interface AdapterContext {
  credentials: Record<string, string>;
  /** The environment the credentials are for (a provider whose address differs per environment reads it). */
  environment?: Environment;
  /** The provider's directory as the connection actor keeps it (cached briefly); absent outside the service. */
  directory?: (opts?: { refresh?: boolean }) => Promise<DirectoryRead>;
  /** The SSRF-guarded fetch with the adapter's timeout. */
  fetch: typeof fetch;
  now: number;
}

export type Discovery =
  | { kind: "found"; vaspId: string; vaspName: string | null }
  | { kind: "not_found" }
  /** Pending, 429, 5xx, no answer: ask again at least 11 s later, up to five minutes. */
  | { kind: "retry"; reason: string }
  /** Ambiguous or unusable: routing stops, the transfer fails whichever provider would carry it. */
  | { kind: "fatal"; reason: string };

export type Submission =
  /** The provider took the transfer and answered. */
  | {
      kind: "answered";
      externalId: string;
      theirs: "accepted" | "rejected";
      /** The beneficiary VASP's persons for the address (to screen), on acceptance. */
      beneficiaryPersons?: Person[];
      reasonType?: string;
      vaspId: string;
      vaspName: string | null;
      /** The chain address the counterparty approved with (provider_d: the transfer named a Travel Address). */
      beneficiaryAddress?: string;
      /** The provider flow's first durable state for this transfer. */
      flowState?: Record<string, unknown>;
    }
  /** The provider took the transfer; its answer comes later (events, polls): the provider's transfer flow goes on. */
  | { kind: "taken"; externalId: string; vaspId: string; vaspName: string | null; flowState?: Record<string, unknown> }
  /** Refused before the provider took it (the request could not be built, no VASP): another provider may try. */
  | { kind: "not_taken"; reason: string; vaspNotFound?: boolean }
  /** Sent, but the answer is missing or does not match the request: the outcome is unknown. */
  | { kind: "unknown"; externalId: string | null; error: string };

export type ActionResult = { ok: true } | { ok: false; message: string; code?: string };

export interface ProviderAdapter {
  readonly name: Protocol;
  /** Part 3 "Sending capability": why this provider cannot carry the transfer, or ok. */
  canCarry(t: TransferCandidate): { ok: true } | { ok: false; reason: string };
  testConnection?(env: Environment, ctx: AdapterContext): Promise<{ success: boolean; message: string; error?: string }>;
  /** Reads the provider's directory of VASPs (for the connection actor, which caches it). */
  readDirectory?(ctx: AdapterContext): Promise<DirectoryRead>;
  discover?(t: OutgoingTransfer, ctx: AdapterContext): Promise<Discovery>;
  submit?(t: OutgoingTransfer, vasp: { vaspId: string; vaspName: string | null }, ctx: AdapterContext): Promise<Submission>;
  /** `accept` with a txHash: the transaction is reported to the provider first (strict notification). */
  reportTransaction?(t: OutgoingTransfer & { externalId: string; vaspId: string }, txHash: string, ctx: AdapterContext): Promise<ActionResult>;
  /** The service cancels itself at the provider (screening rejected the beneficiary data). */
  cancel?(t: OutgoingTransfer & { externalId: string; vaspId: string }, reasonType: string, ctx: AdapterContext): Promise<ActionResult>;
}
