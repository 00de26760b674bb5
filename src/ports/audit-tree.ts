// What the audit sealer needs of the audit log's tree: part of the storage ports (src/ports/), in the domain's terms.
// The SQLite engine implements it (its audit trees).

/** An Ed25519 checkpoint signing key: the seed stays in memory; the key ID names it in signed notes. */
export interface SigningKey {
  readonly seed: Uint8Array;
  readonly publicKey: Uint8Array;
  readonly keyId: string;
}

export interface AuditSealing {
  /** Gives committed audit entries their leaves, in commit order (the one place leaf indexes are assigned); how many. */
  seal(): number;
  /** Signs a checkpoint of every tree that grew since its last one; the events that announce them. */
  checkpoint(key: SigningKey, now: number): { eventSeqs: number[] };
}
