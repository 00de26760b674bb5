// The surface every screening integration adapter shares (Part 3 "screening_c screening", "screening_d screening").
// Outcomes are values, never exceptions, and never carry a vendor's raw error body (Part 3 "What the service does" 4).
import type { Environment } from "../../domain/types.ts";
import type { Person } from "../../domain/ivms101/index.ts";
import type { IntegrationName } from "../../domain/providers/catalog.ts";
import type { OutboundFetch } from "../providers/outbound.ts";

/** Which side of the transfer a screened subject belongs to. */
export type Party = "originator" | "beneficiary";

/** One thing to screen: a person (name screening) or an address on a network (address screening). */
export type ScreeningSubject =
  | { kind: "name"; party: Party; person: Person }
  | { kind: "address"; party: Party; address: string; network: string };

/** One subject's screening as recorded on the check (`response.screenings[]`). */
export interface SubjectScreening {
  party: Party;
  kind: "name" | "address";
  status: "success" | "error";
  /** The vendor's answer as received (kept only where Part 3 says so: never a failed screening_d body). */
  response: unknown | null;
  /** A code (`TIMEOUT`, `HTTP_503`, `SCREENING_D_12`, …) or a short text of ours; never a vendor body. */
  error?: string;
}

/** A check as the transfer records it: one integration at one checkpoint. */
export interface CheckResult {
  integration: IntegrationName;
  /** `skipped`: the circuit breaker was open, no request was made. */
  status: "success" | "error" | "skipped";
  screenings: SubjectScreening[];
  /** Why the whole check failed or was skipped, when it did (code or short text). */
  error?: string;
  durationMs: number;
}

export interface ScreeningContext {
  environment: Environment;
  /** The environment's saved credentials (decrypted), or null when none are saved: the check fails without a request. */
  credentials: Readonly<Record<string, string>> | null;
  /** The SSRF-guarded outbound client (CARAVAN_ALLOW_PRIVATE_TARGETS lets a loopback sandbox through). */
  fetch: OutboundFetch;
  now: number;
}

/** Adapters are built with their base addresses (CARAVAN_SCREENING_C_URLS, CARAVAN_SCREENING_D_URL, or the vendors' defaults). */
export interface ScreeningAdapter {
  readonly name: IntegrationName;
  readonly type: "blockchain_analytics" | "sanctions" | "kyc";
  /** Which subjects of a checkpoint this integration screens (screening_c: names; screening_d: addresses). */
  accepts(subject: ScreeningSubject): boolean;
  /** Screens every accepted subject (one request each, no retries) and says how the check went. */
  screen(subjects: ScreeningSubject[], ctx: ScreeningContext): Promise<CheckResult>;
  testConnection(ctx: ScreeningContext): Promise<{ success: boolean; message: string; error?: string }>;
}
