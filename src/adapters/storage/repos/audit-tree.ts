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
import type { AuditSealing, SigningKey } from "../../../ports/audit-tree.ts";
// The native SHA-256 for leaves and nodes (the module installs it when the runtime has one).
import "../../crypto/hash.ts";

export type { SigningKey } from "../../../ports/audit-tree.ts";

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

export const logIdOf = (companyId: string, environment: string) => `${companyId}/${environment}`;

export class AuditTreeError extends Error {
  override name = "AuditTreeError";
}

/**
 * Nodes are stored from this level up (a subtree of 16 leaves): the three levels below are recomputed from at most 16
 * leaf hashes when a proof or a root needs them, so sealing writes one node row per 16 entries instead of one per entry.
 */
export const MIN_STORED_LEVEL = 4;

/** The entries sealed in one transaction at most (the rest wait for the next turn). */
const SEAL_BATCH = 5_000;

export class AuditTrees implements AuditSealing {
  /** Right edges by tree, valid while their size equals the stored one (another process may have sealed since). */
  private edges = new Map<string, RightEdge>();

  constructor(
    private readonly s: Storage,
    private readonly env: Record<string, string | undefined> = {},
  ) {}

  /** The origin (and key name) of a tree: CARAVAN_AUDIT_ORIGIN or `caravan/<database id>`, then company and environment. */
  private originFor(companyId: string, environment: string): string {
    const base = this.env.CARAVAN_AUDIT_ORIGIN?.replace(/\/+$/, "") || `caravan/${readMeta(this.s, "database_id") ?? "db"}`;
    return `${base}/audit/${companyId}/${environment}`.replace(/[\s+]/g, "-");
  }

  tree(logId: string): TreeRow | undefined {
    return (this.s.stmt("SELECT * FROM audit_trees WHERE log_id = ?").get(logId) ?? undefined) as TreeRow | undefined;
  }

  trees(): TreeRow[] {
    return this.s.stmt("SELECT * FROM audit_trees ORDER BY log_id").all() as unknown as TreeRow[];
  }

  /** A SubtreeHash over the stored leaves and nodes of one tree. */
  subtrees(logId: string): SubtreeHash {
    const leaf = this.s.stmt("SELECT leaf_hash AS h FROM audit_leaves WHERE log_id = ? AND leaf_index = ?");
    const node = this.s.stmt("SELECT hash AS h FROM audit_tree_nodes WHERE log_id = ? AND level = ? AND idx = ?");
    const get: SubtreeHash = (level, index) => {
      if (level > 0 && level < MIN_STORED_LEVEL) return nodeHash(get(level - 1, 2 * index), get(level - 1, 2 * index + 1));
      const row = (level === 0 ? leaf.get(logId, index) : node.get(logId, level, index)) as { h: Uint8Array } | null;
      if (!row) throw new AuditTreeError(`the tree ${logId} lacks its node at level ${level}, index ${index}`);
      return new Uint8Array(row.h);
    };
    return get;
  }

  private edge(logId: string, size: number): RightEdge {
    const held = this.edges.get(logId);
    if (held && held.size === size) return held;
    const get = this.subtrees(logId);
    const edge = new RightEdge(size, RightEdge.parts(size).map((p) => get(p.level, p.index)));
    this.edges.set(logId, edge);
    return edge;
  }

  root(logId: string, size: number): Uint8Array {
    return rangeHash(0, size, this.subtrees(logId));
  }

  /**
   * Gives every committed entry not yet in a tree its leaf, in commit order; answers how many it sealed. The cost per
   * entry: its encoding, one leaf hash, on average one node hash (at most log2 n), one leaf row and a node row per 16.
   */
  seal(limit = SEAL_BATCH): number {
    // A cheap look first (no write lock): nothing after the last sealed entry.
    const after = () => Number((this.s.stmt("SELECT coalesce(max(entry_seq), 0) AS m FROM audit_leaves").get() as { m: number }).m);
    if (!this.s.stmt("SELECT 1 AS x FROM audit_log WHERE seq > ? LIMIT 1").get(after())) return 0;
    try {
      return this.s.tx(() => {
        const rows = this.s.stmt("SELECT * FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?").all(after(), limit) as unknown as AuditRow[];
        const touched = new Map<string, { tree: TreeRow; edge: RightEdge }>();
        const insertLeaf = this.s.stmt("INSERT INTO audit_leaves (log_id, leaf_index, entry_seq, leaf_hash) VALUES (?, ?, ?, ?)");
        const insertNode = this.s.stmt("INSERT INTO audit_tree_nodes (log_id, level, idx, hash) VALUES (?, ?, ?, ?)");
        const made: NewNode[] = [];
        for (const r of rows) {
          const logId = logIdOf(r.company_id, r.environment);
          let t = touched.get(logId);
          if (!t) {
            let tree = this.tree(logId);
            if (!tree) {
              tree = { log_id: logId, company_id: r.company_id, environment: r.environment, origin: this.originFor(r.company_id, r.environment), size: 0 };
              this.s.stmt("INSERT INTO audit_trees (log_id, company_id, environment, origin, size) VALUES (?, ?, ?, ?, 0)").run(logId, tree.company_id, tree.environment, tree.origin);
            }
            t = { tree, edge: this.edge(logId, tree.size) };
            touched.set(logId, t);
          }
          const h = leafHash(encodeEntry(r as unknown as EntryColumns));
          insertLeaf.run(logId, t.edge.size, r.seq, h);
          made.length = 0;
          t.edge.append(h, made);
          for (const n of made) if (n.level >= MIN_STORED_LEVEL) insertNode.run(logId, n.level, n.index, n.hash);
        }
        for (const [logId, t] of touched) this.s.stmt("UPDATE audit_trees SET size = ? WHERE log_id = ?").run(t.edge.size, logId);
        return rows.length;
      });
    } catch (e) {
      // The held edges may have advanced inside the rolled-back transaction.
      this.edges.clear();
      throw e;
    }
  }

  /** Seals everything committed so far (in batches). */
  sealAll(): number {
    let n = 0;
    for (let k = this.seal(); k > 0; k = this.seal()) n += k;
    return n;
  }

  latest(logId: string): CheckpointRow | undefined {
    return (this.s.stmt("SELECT * FROM audit_checkpoints WHERE log_id = ? ORDER BY tree_size DESC, created_at DESC LIMIT 1").get(logId) ?? undefined) as CheckpointRow | undefined;
  }

  checkpointAt(logId: string, size: number): CheckpointRow | undefined {
    return (this.s.stmt("SELECT * FROM audit_checkpoints WHERE log_id = ? AND tree_size = ? ORDER BY created_at DESC LIMIT 1").get(logId, size) ?? undefined) as CheckpointRow | undefined;
  }

  checkpoints(logId: string): CheckpointRow[] {
    return this.s.stmt("SELECT * FROM audit_checkpoints WHERE log_id = ? ORDER BY tree_size, created_at").all(logId) as unknown as CheckpointRow[];
  }

  /** The leaf of an entry (by its seq), if it has been sealed. */
  leafOf(entrySeq: number): { log_id: string; leaf_index: number; leaf_hash: Uint8Array } | undefined {
    const row = this.s.stmt("SELECT log_id, leaf_index, leaf_hash FROM audit_leaves WHERE entry_seq = ?").get(entrySeq) as
      | { log_id: string; leaf_index: number; leaf_hash: Uint8Array }
      | null;
    return row ? { ...row, leaf_hash: new Uint8Array(row.leaf_hash) } : undefined;
  }

  inclusion(logId: string, leafIndex: number, size: number): Uint8Array[] {
    return inclusionProof(leafIndex, size, this.subtrees(logId));
  }

  consistency(logId: string, from: number, to: number): Uint8Array[] {
    return consistencyProof(from, to, this.subtrees(logId));
  }

  // ---- keys ----

  keys(): SigningKeyRow[] {
    return this.s.stmt("SELECT * FROM audit_signing_keys ORDER BY created_at, key_id").all() as unknown as SigningKeyRow[];
  }

  activeKey(): SigningKeyRow | undefined {
    return (this.s.stmt("SELECT * FROM audit_signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1").get() ?? undefined) as SigningKeyRow | undefined;
  }

  /**
   * Lists the key when the database has none yet; refuses a key that is not the database's active one (a key file
   * replaced or lost: signing with it would orphan the published key without saying so).
   */
  adoptKey(key: SigningKey, now: number, where: string): void {
    const active = this.activeKey();
    if (active?.key_id === key.keyId) return;
    if (active)
      throw new AuditTreeError(
        `the audit signing key in ${where} (${key.keyId}) is not the database's active key (${active.key_id}): put the original key back, or make a new one with caravan audit rotate-key`,
      );
    this.s.tx(() => {
      if (this.activeKey()) return;
      this.s.stmt("INSERT OR IGNORE INTO audit_signing_keys (key_id, public_key, created_at, retired_at) VALUES (?, ?, ?, NULL)").run(key.keyId, base64.encode(key.publicKey), iso(now));
    });
  }

  /** Retires the active key and lists `next` as active (inside the caller's transaction). */
  rotateTo(next: SigningKey, now: number): void {
    this.s.stmt("UPDATE audit_signing_keys SET retired_at = ? WHERE retired_at IS NULL").run(iso(now));
    this.s.stmt("INSERT INTO audit_signing_keys (key_id, public_key, created_at, retired_at) VALUES (?, ?, ?, NULL)").run(next.keyId, base64.encode(next.publicKey), iso(now));
  }

  // ---- checkpoints ----

  /**
   * Seals what is committed, then signs a checkpoint of every tree that grew since its last one (`all`: every tree,
   * even one that did not, as a rotation does to put the new key on record). Each new checkpoint is an
   * `audit.checkpoint` event of its company and environment. Answers the new checkpoints' event seqs and rows.
   */
  checkpoint(key: SigningKey, now: number, opts: { all?: boolean; alsoSignWith?: SigningKey[]; only?: string } = {}): { rows: CheckpointRow[]; eventSeqs: number[] } {
    this.sealAll();
    return this.s.tx(() => {
      const rows: CheckpointRow[] = [];
      const eventSeqs: number[] = [];
      for (const tree of this.trees()) {
        if (opts.only !== undefined && tree.log_id !== opts.only) continue;
        const last = this.latest(tree.log_id);
        if (last && (last.tree_size > tree.size || (last.tree_size === tree.size && (!opts.all || last.key_id === key.keyId)))) continue;
        const root = this.edge(tree.log_id, tree.size).root();
        const text = checkpointText({ origin: tree.origin, size: tree.size, root, time: iso(now) });
        const note = signNote(text, tree.origin, [key.seed, ...(opts.alsoSignWith ?? []).map((k) => k.seed)]);
        const row: CheckpointRow = { log_id: tree.log_id, tree_size: tree.size, created_at: iso(now), key_id: key.keyId, note };
        // A checkpoint of this size already signed with this key (by another process) stays the one on record.
        const r = this.s.stmt("INSERT OR IGNORE INTO audit_checkpoints (log_id, tree_size, created_at, key_id, note) VALUES (?, ?, ?, ?, ?)").run(row.log_id, row.tree_size, row.created_at, row.key_id, row.note);
        if (r.changes === 0) continue;
        rows.push(row);
        const data = this.view(row, key.publicKey);
        const ev = this.s
          .stmt("INSERT INTO events (id, company_id, environment, type, entity_type, entity_id, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
          .run(newId("evt", now), tree.company_id, tree.environment, "audit.checkpoint", "AuditLog", tree.origin, JSON.stringify(data), iso(now));
        eventSeqs.push(Number(ev.lastInsertRowid));
      }
      return { rows, eventSeqs };
    });
  }

  /** A checkpoint as the API and the event show it; `publicKey` is the signing key's (looked up when not given). */
  view(row: CheckpointRow, publicKey?: Uint8Array): CheckpointView {
    const c = parseCheckpointText(row.note.slice(0, row.note.lastIndexOf("\n\n") + 1));
    const pk = publicKey ?? base64.decode((this.s.stmt("SELECT public_key FROM audit_signing_keys WHERE key_id = ?").get(row.key_id) as { public_key: string }).public_key);
    return {
      origin: c.origin,
      treeSize: c.size,
      rootHash: base64.encode(c.root),
      timestamp: c.time ?? row.created_at,
      keyId: row.key_id,
      publicKey: base64.encode(pk),
      verifierKey: verifierKey(c.origin, pk),
      note: row.note,
    };
  }
}
