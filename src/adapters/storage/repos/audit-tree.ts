// The audit log's Merkle trees in storage: the sealer that gives committed entries their leaf index (the one place
// indexes are assigned), the complete subtrees' hashes, signed checkpoints, proofs, and the signing keys' public halves.
//
// Sealing runs in one IMMEDIATE transaction: it takes the entries after the last sealed one in `seq` order (in SQLite
// every write transaction is serialized, so `seq` order is commit order), appends each to its company and
// environment's tree and writes the leaf, the nodes it completed and the tree's new size. Any process may run it (the
// server every second, the CLI before a checkpoint); the write lock makes them take turns, and each starts from what
// the database says, so indexes stay dense and in one order. docs/architecture.md says how this carries over to
// PostgreSQL and several nodes.
import { base64 } from "@scure/base";
import {
  checkpointText,
  consistencyProof,
  encodeEntry,
  inclusionProof,
  leafHash,
  nodeHash,
  parseCheckpointText,
  rangeHash,
  RightEdge,
  signNote,
  verifierKey,
  type EntryColumns,
  type NewNode,
  type SubtreeHash,
} from "../../../domain/audit-tree.ts";
import { iso, newId } from "../../../domain/ids.ts";
import type { Environment } from "../../../domain/types.ts";
import type { Storage } from "../types.ts";
import type { AuditRow } from "./audit.ts";
import { readMeta } from "../meta.ts";
import {
  AuditTreeError,
  logIdOf,
  type AuditCheckpoint,
  type AuditTree,
  type AuditTreeRepository,
  type CheckpointOptions,
  type CheckpointView,
  type EntryLeaf,
  type SigningKey,
  type SigningKeyRecord,
} from "../../../ports/audit-tree.ts";
// The native SHA-256 for leaves and nodes (the module installs it when the runtime has one).
import "../../crypto/hash.ts";

export { AuditTreeError, logIdOf };
export type { AuditCheckpoint, AuditTree, CheckpointView, SigningKey, SigningKeyRecord } from "../../../ports/audit-tree.ts";

export interface TreeRow {
  log_id: string;
  company_id: string;
  environment: Environment;
  origin: string;
  size: number;
}

export interface CheckpointRow {
  log_id: string;
  tree_size: number;
  created_at: string;
  key_id: string;
  note: string;
}

export interface SigningKeyRow {
  key_id: string;
  public_key: string;
  created_at: string;
  retired_at: string | null;
}

export const toTree = (r: TreeRow): AuditTree => ({ logId: r.log_id, companyId: r.company_id, environment: r.environment, origin: r.origin, size: r.size });
export const toCheckpoint = (r: CheckpointRow): AuditCheckpoint => ({ logId: r.log_id, treeSize: r.tree_size, createdAt: r.created_at, keyId: r.key_id, note: r.note });
export const toKey = (r: SigningKeyRow): SigningKeyRecord => ({ keyId: r.key_id, publicKey: r.public_key, createdAt: r.created_at, retiredAt: r.retired_at });

/**
 * Nodes are stored from this level up (a subtree of 16 leaves): the three levels below are recomputed from at most 16
 * leaf hashes when a proof or a root needs them, so sealing writes one node row per 16 entries instead of one per entry.
 */
export const MIN_STORED_LEVEL = 4;

/** The entries sealed in one transaction at most (the rest wait for the next turn). */
export const SEAL_BATCH = 5_000;

export class AuditTrees implements AuditTreeRepository {
  /** Right edges by tree, valid while their size equals the stored one (another process may have sealed since). */
  private edges = new Map<string, RightEdge>();

  constructor(
    private readonly s: Storage,
    private readonly env: Record<string, string | undefined> = {},
  ) {}

  /** The origin (and key name) of a tree: CARAVAN_AUDIT_ORIGIN or `caravan/<database id>`, then company and environment. */
  private originFor(companyId: string, environment: string): string {
    return treeOrigin(this.env, readMeta(this.s, "database_id"), companyId, environment);
  }

  private treeRow(logId: string): TreeRow | undefined {
    return (this.s.stmt("SELECT * FROM audit_trees WHERE log_id = ?").get(logId) ?? undefined) as TreeRow | undefined;
  }

  private treeRows(): TreeRow[] {
    return this.s.stmt("SELECT * FROM audit_trees ORDER BY log_id").all() as unknown as TreeRow[];
  }

  tree(logId: string): Promise<AuditTree | undefined> {
    return this.s.run(() => {
      const r = this.treeRow(logId);
      return r ? toTree(r) : undefined;
    });
  }

  trees(): Promise<AuditTree[]> {
    return this.s.run(() => this.treeRows().map(toTree));
  }

  /** A SubtreeHash over the stored leaves and nodes of one tree. */
  private subtrees(logId: string): SubtreeHash {
    const leaf = this.s.stmt("SELECT leaf_hash AS h FROM audit_leaves WHERE log_id = ? AND leaf_index = ?");
    const node = this.s.stmt("SELECT hash AS h FROM audit_tree_nodes WHERE log_id = ? AND level = ? AND idx = ?");
    return storedSubtrees(logId, (level, index) => ((level === 0 ? leaf.get(logId, index) : node.get(logId, level, index)) as { h: Uint8Array } | null)?.h);
  }

  private edge(logId: string, size: number): RightEdge {
    const held = this.edges.get(logId);
    if (held && held.size === size) return held;
    const get = this.subtrees(logId);
    const edge = new RightEdge(size, RightEdge.parts(size).map((p) => get(p.level, p.index)));
    this.edges.set(logId, edge);
    return edge;
  }

  root(logId: string, size: number): Promise<Uint8Array> {
    return this.s.run(() => rangeHash(0, size, this.subtrees(logId)));
  }

  /**
   * Gives every committed entry not yet in a tree its leaf, in commit order; answers how many it sealed. The cost per
   * entry: its encoding, one leaf hash, on average one node hash (at most log2 n), one leaf row and a node row per 16.
   */
  seal(limit = SEAL_BATCH): Promise<number> {
    return this.s.run(() => this.sealNow(limit));
  }

  private sealNow(limit = SEAL_BATCH): number {
    // A cheap look first (no write lock): nothing after the last sealed entry.
    const after = () => Number((this.s.stmt("SELECT coalesce(max(entry_seq), 0) AS m FROM audit_leaves").get() as { m: number }).m);
    if (!this.s.stmt("SELECT 1 AS x FROM audit_log WHERE seq > ? LIMIT 1").get(after())) return 0;
    try {
      return this.s.tx(() => {
        const rows = this.s.stmt("SELECT * FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?").all(after(), limit) as unknown as AuditRow[];
        const touched = new Map<string, RightEdge>();
        const sealed = appendEntries(rows, (r, logId) => {
          let edge = touched.get(logId);
          if (!edge) {
            let tree = this.treeRow(logId);
            if (!tree) {
              tree = { log_id: logId, company_id: r.company_id, environment: r.environment as Environment, origin: this.originFor(r.company_id, r.environment), size: 0 };
              this.s.stmt("INSERT INTO audit_trees (log_id, company_id, environment, origin, size) VALUES (?, ?, ?, ?, 0)").run(logId, tree.company_id, tree.environment, tree.origin);
            }
            edge = this.edge(logId, tree.size);
            touched.set(logId, edge);
          }
          return edge;
        });
        const insertLeaf = this.s.stmt("INSERT INTO audit_leaves (log_id, leaf_index, entry_seq, leaf_hash) VALUES (?, ?, ?, ?)");
        const insertNode = this.s.stmt("INSERT INTO audit_tree_nodes (log_id, level, idx, hash) VALUES (?, ?, ?, ?)");
        for (const l of sealed.leaves) insertLeaf.run(l.logId, l.index, l.seq, l.hash);
        for (const n of sealed.nodes) insertNode.run(n.logId, n.level, n.index, n.hash);
        for (const [logId, edge] of touched) this.s.stmt("UPDATE audit_trees SET size = ? WHERE log_id = ?").run(edge.size, logId);
        return rows.length;
      });
    } catch (e) {
      // The held edges may have advanced inside the rolled-back transaction.
      this.edges.clear();
      throw e;
    }
  }

  /** Seals everything committed so far (in batches). */
  sealAll(): Promise<number> {
    return this.s.run(() => this.sealAllNow());
  }

  private sealAllNow(): number {
    let n = 0;
    for (let k = this.sealNow(); k > 0; k = this.sealNow()) n += k;
    return n;
  }

  private latestRow(logId: string): CheckpointRow | undefined {
    return (this.s.stmt("SELECT * FROM audit_checkpoints WHERE log_id = ? ORDER BY tree_size DESC, created_at DESC LIMIT 1").get(logId) ?? undefined) as CheckpointRow | undefined;
  }

  latest(logId: string): Promise<AuditCheckpoint | undefined> {
    return this.s.run(() => {
      const r = this.latestRow(logId);
      return r ? toCheckpoint(r) : undefined;
    });
  }

  checkpointAt(logId: string, size: number): Promise<AuditCheckpoint | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT * FROM audit_checkpoints WHERE log_id = ? AND tree_size = ? ORDER BY created_at DESC LIMIT 1").get(logId, size) as CheckpointRow | null | undefined;
      return r ? toCheckpoint(r) : undefined;
    });
  }

  checkpoints(logId: string): Promise<AuditCheckpoint[]> {
    return this.s.run(() => (this.s.stmt("SELECT * FROM audit_checkpoints WHERE log_id = ? ORDER BY tree_size, created_at").all(logId) as unknown as CheckpointRow[]).map(toCheckpoint));
  }

  /** The leaf of an entry (by its seq), if it has been sealed, with the entry's canonical encoding. */
  leafOf(entrySeq: number): Promise<EntryLeaf | undefined> {
    return this.s.run(() => {
      const row = this.s.stmt("SELECT log_id, leaf_index, leaf_hash FROM audit_leaves WHERE entry_seq = ?").get(entrySeq) as
        | { log_id: string; leaf_index: number; leaf_hash: Uint8Array }
        | null;
      if (!row) return undefined;
      const entry = this.s.stmt("SELECT * FROM audit_log WHERE seq = ?").get(entrySeq) as AuditRow | null;
      if (!entry) throw new AuditTreeError(`the leaf ${row.leaf_index} of ${row.log_id} names entry ${entrySeq}, which is not in the audit log`);
      return { logId: row.log_id, leafIndex: row.leaf_index, leafHash: new Uint8Array(row.leaf_hash), encoding: encodeEntry(entry as unknown as EntryColumns) };
    });
  }

  inclusion(logId: string, leafIndex: number, size: number): Promise<Uint8Array[]> {
    return this.s.run(() => inclusionProof(leafIndex, size, this.subtrees(logId)));
  }

  consistency(logId: string, from: number, to: number): Promise<Uint8Array[]> {
    return this.s.run(() => consistencyProof(from, to, this.subtrees(logId)));
  }

  // ---- keys ----

  keys(): Promise<SigningKeyRecord[]> {
    return this.s.run(() => (this.s.stmt("SELECT * FROM audit_signing_keys ORDER BY created_at, key_id").all() as unknown as SigningKeyRow[]).map(toKey));
  }

  private activeKeyRow(): SigningKeyRow | undefined {
    return (this.s.stmt("SELECT * FROM audit_signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1").get() ?? undefined) as SigningKeyRow | undefined;
  }

  activeKey(): Promise<SigningKeyRecord | undefined> {
    return this.s.run(() => {
      const r = this.activeKeyRow();
      return r ? toKey(r) : undefined;
    });
  }

  /**
   * Lists the key when the database has none yet; refuses a key that is not the database's active one (a key file
   * replaced or lost: signing with it would orphan the published key without saying so).
   */
  async adoptKey(key: SigningKey, now: number, where: string): Promise<void> {
    if (!mustList(await this.activeKey(), key, where)) return;
    await this.s.transaction(async () => {
      if (this.activeKeyRow()) return;
      this.s.stmt("INSERT OR IGNORE INTO audit_signing_keys (key_id, public_key, created_at, retired_at) VALUES (?, ?, ?, NULL)").run(key.keyId, base64.encode(key.publicKey), iso(now));
    });
  }

  /** Retires the active key and lists `next` as active (inside the caller's transaction). */
  rotateTo(next: SigningKey, now: number): Promise<void> {
    return this.s.run(() => {
      this.s.stmt("UPDATE audit_signing_keys SET retired_at = ? WHERE retired_at IS NULL").run(iso(now));
      this.s.stmt("INSERT INTO audit_signing_keys (key_id, public_key, created_at, retired_at) VALUES (?, ?, ?, NULL)").run(next.keyId, base64.encode(next.publicKey), iso(now));
    });
  }

  // ---- checkpoints ----

  /**
   * Seals what is committed, then signs a checkpoint of every tree that grew since its last one (`all`: every tree,
   * even one that did not, as a rotation does to put the new key on record). Each new checkpoint is an
   * `audit.checkpoint` event of its company and environment. Answers the new checkpoints' event seqs and rows.
   */
  checkpoint(key: SigningKey, now: number, opts: CheckpointOptions = {}): Promise<{ checkpoints: AuditCheckpoint[]; eventSeqs: number[] }> {
    return this.s.run(() => this.checkpointNow(key, now, opts));
  }

  private checkpointNow(key: SigningKey, now: number, opts: CheckpointOptions): { checkpoints: AuditCheckpoint[]; eventSeqs: number[] } {
    this.sealAllNow();
    return this.s.tx(() => {
      const rows: CheckpointRow[] = [];
      const eventSeqs: number[] = [];
      for (const tree of this.treeRows()) {
        if (opts.only !== undefined && tree.log_id !== opts.only) continue;
        if (!checkpointDue(tree, this.latestRow(tree.log_id), key, opts)) continue;
        const row = signedCheckpoint(tree, this.edge(tree.log_id, tree.size).root(), key, now, opts);
        // A checkpoint of this size already signed with this key (by another process) stays the one on record.
        const r = this.s.stmt("INSERT OR IGNORE INTO audit_checkpoints (log_id, tree_size, created_at, key_id, note) VALUES (?, ?, ?, ?, ?)").run(row.log_id, row.tree_size, row.created_at, row.key_id, row.note);
        if (r.changes === 0) continue;
        rows.push(row);
        const data = this.viewOf(row, key.publicKey);
        const ev = this.s
          .stmt("INSERT INTO events (id, company_id, environment, type, entity_type, entity_id, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
          .run(newId("evt", now), tree.company_id, tree.environment, "audit.checkpoint", "AuditLog", tree.origin, JSON.stringify(data), iso(now));
        eventSeqs.push(Number(ev.lastInsertRowid));
      }
      return { checkpoints: rows.map(toCheckpoint), eventSeqs };
    });
  }

  /** A checkpoint as the API and the event show it; `publicKey` is the signing key's (looked up when not given). */
  view(checkpoint: AuditCheckpoint, publicKey?: Uint8Array): Promise<CheckpointView> {
    const row: CheckpointRow = { log_id: checkpoint.logId, tree_size: checkpoint.treeSize, created_at: checkpoint.createdAt, key_id: checkpoint.keyId, note: checkpoint.note };
    return this.s.run(() => this.viewOf(row, publicKey));
  }

  private viewOf(row: CheckpointRow, publicKey?: Uint8Array): CheckpointView {
    return checkpointView(row, publicKey ?? base64.decode((this.s.stmt("SELECT public_key FROM audit_signing_keys WHERE key_id = ?").get(row.key_id) as { public_key: string }).public_key));
  }
}

// ---- what both engines' sealers and signers decide (the PostgreSQL twin: ../postgres/repos/audit-tree.ts) ----

/**
 * Whether `key` is to be listed (the database has no active key); false when it is the active one already. A key
 * that is not the database's active one is refused (a key file replaced or lost).
 */
export function mustList(active: SigningKeyRecord | undefined, key: SigningKey, where: string): boolean {
  if (active?.keyId === key.keyId) return false;
  if (active)
    throw new AuditTreeError(
      `the audit signing key in ${where} (${key.keyId}) is not the database's active key (${active.keyId}): put the original key back, or make a new one with caravan audit rotate-key`,
    );
  return true;
}

/** The origin (and key name) of a tree: CARAVAN_AUDIT_ORIGIN or `caravan/<database id>`, then company and environment. */
export function treeOrigin(env: Record<string, string | undefined>, databaseId: string | undefined, companyId: string, environment: string): string {
  const base = env.CARAVAN_AUDIT_ORIGIN?.replace(/\/+$/, "") || `caravan/${databaseId ?? "db"}`;
  return `${base}/audit/${companyId}/${environment}`.replace(/[\s+]/g, "-");
}

/**
 * A SubtreeHash over a tree's stored hashes, `stored(level, index)` answering a leaf (level 0) or a node (from
 * MIN_STORED_LEVEL up); the levels between are recomputed from their children.
 */
export function storedSubtrees(logId: string, stored: (level: number, index: number) => Uint8Array | undefined): SubtreeHash {
  const get: SubtreeHash = (level, index) => {
    if (level > 0 && level < MIN_STORED_LEVEL) return nodeHash(get(level - 1, 2 * index), get(level - 1, 2 * index + 1));
    const h = stored(level, index);
    if (!h) throw new AuditTreeError(`the tree ${logId} lacks its node at level ${level}, index ${index}`);
    return new Uint8Array(h);
  };
  return get;
}

export interface SealedLeaf {
  logId: string;
  index: number;
  seq: number;
  hash: Uint8Array;
}

export interface SealedNode {
  logId: string;
  level: number;
  index: number;
  hash: Uint8Array;
}

/**
 * Appends each entry (in the order given: commit order) to its tree's right edge (`edgeOf`, advanced in place):
 * the leaves to write and the nodes they completed that are stored (MIN_STORED_LEVEL and up).
 */
export function appendEntries(rows: AuditRow[], edgeOf: (r: AuditRow, logId: string) => RightEdge): { leaves: SealedLeaf[]; nodes: SealedNode[] } {
  const leaves: SealedLeaf[] = [];
  const nodes: SealedNode[] = [];
  const made: NewNode[] = [];
  for (const r of rows) {
    const logId = logIdOf(r.company_id, r.environment);
    const edge = edgeOf(r, logId);
    const h = leafHash(encodeEntry(r as unknown as EntryColumns));
    leaves.push({ logId, index: edge.size, seq: r.seq, hash: h });
    made.length = 0;
    edge.append(h, made);
    for (const n of made) if (n.level >= MIN_STORED_LEVEL) nodes.push({ logId, level: n.level, index: n.index, hash: n.hash });
  }
  return { leaves, nodes };
}

/**
 * Whether a tree is due a checkpoint after its last one: when it grew, or with `all` when the last one is of another
 * key (a rotation); never of fewer entries than the last.
 */
export function checkpointDue(tree: TreeRow, last: CheckpointRow | undefined, key: SigningKey, opts: CheckpointOptions): boolean {
  return !(last && (last.tree_size > tree.size || (last.tree_size === tree.size && (!opts.all || last.key_id === key.keyId))));
}

/** The signed checkpoint of a tree at its size and `root`, at `now` (co-signed with `alsoSignWith`). */
export function signedCheckpoint(tree: TreeRow, root: Uint8Array, key: SigningKey, now: number, opts: CheckpointOptions): CheckpointRow {
  const text = checkpointText({ origin: tree.origin, size: tree.size, root, time: iso(now) });
  const note = signNote(text, tree.origin, [key.seed, ...(opts.alsoSignWith ?? []).map((k) => k.seed)]);
  return { log_id: tree.log_id, tree_size: tree.size, created_at: iso(now), key_id: key.keyId, note };
}

/** A checkpoint as the API and the event show it, `publicKey` being its signing key's. */
export function checkpointView(row: CheckpointRow, publicKey: Uint8Array): CheckpointView {
  const c = parseCheckpointText(row.note.slice(0, row.note.lastIndexOf("\n\n") + 1));
  return {
    origin: c.origin,
    treeSize: c.size,
    rootHash: base64.encode(c.root),
    timestamp: c.time ?? row.created_at,
    keyId: row.key_id,
    publicKey: base64.encode(publicKey),
    verifierKey: verifierKey(c.origin, publicKey),
    note: row.note,
  };
}
