// The audit log's Merkle trees in the domain's terms: one tree per company and environment, the leaves sealing
// committed entries in commit order, signed checkpoints, proofs, and the checkpoint signing keys' public halves.
// Asynchronous like every port (src/ports/store.ts). The SQLite engine's AuditTrees
// (storage's repos/audit-tree.ts) implements it, and the storage contract suite holds every engine to it.
import type { Environment } from "../domain/types.ts";

/** An Ed25519 checkpoint signing key: the seed stays in memory; the key ID names it in signed notes. */
export interface SigningKey {
  readonly seed: Uint8Array;
  readonly publicKey: Uint8Array;
  readonly keyId: string;
}

/** A refusal about the trees or their keys, in words an operator acts on (a missing node, a foreign signing key). */
export class AuditTreeError extends Error {
  override name = "AuditTreeError";
}

/** The tree of one company and environment. */
export const logIdOf = (companyId: string, environment: string) => `${companyId}/${environment}`;

export interface AuditTree {
  logId: string;
  companyId: string;
  environment: Environment;
  /** The checkpoint origin line (and key name of its signed notes). */
  origin: string;
  /** Leaves sealed so far. */
  size: number;
}

/** A signed checkpoint as issued: `note` is the C2SP signed note, byte for byte. */
export interface AuditCheckpoint {
  logId: string;
  treeSize: number;
  createdAt: string;
  keyId: string;
  note: string;
}

/** A checkpoint signing key's public half as the database lists it (`publicKey` in base64). */
export interface SigningKeyRecord {
  keyId: string;
  publicKey: string;
  createdAt: string;
  retiredAt: string | null;
}

/** What an `audit.checkpoint` event carries (and the checkpoint API answers). */
export interface CheckpointView {
  origin: string;
  treeSize: number;
  rootHash: string;
  timestamp: string;
  keyId: string;
  publicKey: string;
  verifierKey: string;
  note: string;
}

/** The leaf of one sealed entry: its index in its tree, its hash, and the entry's canonical encoding it hashes. */
export interface EntryLeaf {
  logId: string;
  leafIndex: number;
  leafHash: Uint8Array;
  encoding: Uint8Array;
}

/** What the audit sealer needs of the trees. */
export interface AuditSealing {
  /** Gives committed audit entries their leaves, in commit order (the one place leaf indexes are assigned); how many. */
  seal(): Promise<number>;
  /** Signs a checkpoint of every tree that grew since its last one; the events that announce them. */
  checkpoint(key: SigningKey, now: number): Promise<{ eventSeqs: number[] }>;
}

export interface CheckpointOptions {
  /** Every tree, even one that did not grow (a rotation puts the new key on record). */
  all?: boolean;
  /** Further keys that co-sign each note (the old key at a rotation). */
  alsoSignWith?: SigningKey[];
  /** Only this tree. */
  only?: string;
}

export interface AuditTreeRepository extends AuditSealing {
  tree(logId: string): Promise<AuditTree | undefined>;
  /** Every tree, by log ID. */
  trees(): Promise<AuditTree[]>;
  root(logId: string, size: number): Promise<Uint8Array>;
  /** Seals in batches until nothing committed is left unsealed; how many. */
  sealAll(): Promise<number>;
  /**
   * Seals what is committed, then signs a checkpoint of every tree that grew since its last one (see the options);
   * each new checkpoint is an `audit.checkpoint` event of its company and environment.
   */
  checkpoint(key: SigningKey, now: number, opts?: CheckpointOptions): Promise<{ checkpoints: AuditCheckpoint[]; eventSeqs: number[] }>;
  /** The tree's latest checkpoint (largest size). */
  latest(logId: string): Promise<AuditCheckpoint | undefined>;
  checkpointAt(logId: string, size: number): Promise<AuditCheckpoint | undefined>;
  /** Oldest first. */
  checkpoints(logId: string): Promise<AuditCheckpoint[]>;
  /** The leaf of an entry (by its `seq`), once sealed. */
  leafOf(entrySeq: number): Promise<EntryLeaf | undefined>;
  inclusion(logId: string, leafIndex: number, size: number): Promise<Uint8Array[]>;
  consistency(logId: string, from: number, to: number): Promise<Uint8Array[]>;
  /** Every signing key, oldest first. */
  keys(): Promise<SigningKeyRecord[]>;
  activeKey(): Promise<SigningKeyRecord | undefined>;
  /** Lists the key when none is listed yet; AuditTreeError when it is not the active one (`where` names its source). */
  adoptKey(key: SigningKey, now: number, where: string): Promise<void>;
  /** Retires the active key and lists `next` as active (inside the caller's unit of work). */
  rotateTo(next: SigningKey, now: number): Promise<void>;
  /** A checkpoint as the API and the event show it; `publicKey` is the signing key's (looked up when not given). */
  view(checkpoint: AuditCheckpoint, publicKey?: Uint8Array): Promise<CheckpointView>;
}
