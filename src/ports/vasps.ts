// The VASP directory port: the counterparty VASPs an environment has seen (written by transfers on both sides and by
// wallet discovery, read by VASP search), in the domain's records. Asynchronous like every port (src/ports/store.ts);
// its writes run inside the caller's unit of work. The SQLite engine implements it in
// storage's repos/vasps.ts, and the storage contract suite (test/storage/contract/) holds every engine to it.
import type { Environment } from "../domain/types.ts";

/** One VASP as search answers it: its ID, its latest name (its ID when no name was ever seen), and where it was seen. */
export interface VaspResult {
  id: string;
  name: string;
  /** `transfer_history` once any transfer named it, else the latest source (`discovery`, …). */
  source: string;
}

export interface VaspRepository {
  /** Records that `vaspId` was seen under `name` (its ID when no name is known) via `source`, at `at` (ISO). */
  record(companyId: string, env: Environment, vaspId: string, name: string | null, source: string, at: string): Promise<void>;
  /**
   * VASPs whose ID or any past name contains `needle` (lower-cased), each once under its latest name, sorted by
   * lower-cased name then ID, strictly after the keyset position `[lower(name), id]`, at most `limit`.
   */
  search(companyId: string, env: Environment, needle: string, after: [string, string] | null, limit: number): Promise<VaspResult[]>;
}
