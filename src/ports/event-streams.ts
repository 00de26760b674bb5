// The open live event streams of the whole service, for their caps (per API key, per company and environment, per
// company) when several nodes serve one database (docs/events.md#several-nodes). PostgreSQL keeps a row per open
// stream, tied to its node's membership; SQLite has none: one process serves a file, and the fan-out's own counts in
// memory are the service's (no cost per stream or per event).
import type { Environment } from "../domain/types.ts";

/** A stream to count: its own ID (random), the key that opened it and its company and environment. */
export interface OpenStreamSlot {
  id: string;
  keyId: string;
  companyId: string;
  environment: Environment;
}

export interface StreamCaps {
  perKey: number;
  perEnvironment: number;
  perCompany: number;
}

/** Which cap a stream met, how many streams held it then, and the cap. */
export interface StreamCapReached {
  cap: "key" | "environment" | "company";
  held: number;
  max: number;
}

export interface StreamRegistry {
  /**
   * Counts the streams open on every live node for the slot's key, company and environment, and company, and registers
   * the slot when each count is under its cap; answers the cap met instead (nothing registered). Opens of one company
   * are counted one after the other, whichever nodes make them, so two never both take the last place. `now`: the
   * caller's clock (a node's rows count while its membership is current at it).
   */
  open(slot: OpenStreamSlot, caps: StreamCaps, now: number): Promise<StreamCapReached | null>;
  /** Removes these slots (streams that ended); an ID that is not registered is passed over. */
  close(ids: readonly string[]): Promise<void>;
}
