// The audit log's Merkle trees on PostgreSQL: the twin of ../../repos/audit-tree.ts (same port, same answers; the
// rows, the appending, the checkpoint decision and its view are SQLite's, imported).
//
// Turns: SQLite's IMMEDIATE transaction becomes a transaction-level advisory lock (SEAL_LOCK) that the sealer and the
// signer take first, so the server, a CLI command or another node take turns and each starts from what the database
// says. Entries commit in seq order (./audit.ts serializes appends), so "after the last sealed seq" is still every
// committed entry not yet in a tree.
//
// Reads: the SQLite sealer reads a stored hash whenever the computation asks for it. A statement here is a round trip,
// so a computation (a root, a proof, a right edge) runs twice: once to learn which stored hashes it asks for (which
// ones depends on the sizes only, never on the hashes), then, after one query for them all, on the hashes read.
import { base64 } from "@scure/base";
import { consistencyProof, encodeEntry, inclusionProof, rangeHash, RightEdge, type EntryColumns, type SubtreeHash } from "../../../../domain/audit-tree.ts";
import { iso, newId } from "../../../../domain/ids.ts";
import {
  appendEntries,
  checkpointDue,
  checkpointView,
  mustList,
  SEAL_BATCH,
  signedCheckpoint,
  storedSubtrees,
  toCheckpoint,
  toKey,
  toTree,
  treeOrigin,
  type CheckpointRow,
  type SigningKeyRow,
  type TreeRow,
} from "../../repos/audit-tree.ts";
import type { AuditRow } from "../../repos/audit.ts";
import { AuditTreeError, logIdOf } from "../../../../ports/audit-tree.ts";
import type { AuditCheckpoint, AuditTree, AuditTreeRepository, CheckpointOptions, CheckpointView, EntryLeaf, SigningKey, SigningKeyRecord } from "../../../../ports/audit-tree.ts";
import type { PgSession } from "../session.ts";
import { eventDataBytes } from "../../event-data.ts";
import { INSERT_EVENT } from "./mailbox.ts";
import "../../../crypto/hash.ts";

/** The advisory lock key sealers and signers take in turn ("AUD" 2). */
export const SEAL_LOCK = 0x41554402;
/** The advisory lock key a key adoption or rotation takes ("AUD" 3). */
export const KEYS_LOCK = 0x41554403;

const PLACEHOLDER = new Uint8Array(32);
const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");

export class PgAuditTrees implements AuditTreeRepository {
  /** Right edges by tree, valid while their size equals the stored one (another process may have sealed since). */
  private edges = new Map<string, RightEdge>();

  constructor(
    private readonly db: PgSession,
    private readonly env: Record<string, string | undefined> = {},
  ) {}

  private async treeRow(logId: string): Promise<TreeRow | undefined> {
    return (await this.db.read<TreeRow>("SELECT * FROM audit_trees WHERE log_id = $1", [logId]))[0];
  }

  private treeRows(): Promise<TreeRow[]> {
    return this.db.read<TreeRow>("SELECT * FROM audit_trees ORDER BY log_id");
  }

  async tree(logId: string): Promise<AuditTree | undefined> {
    const r = await this.treeRow(logId);
    return r ? toTree(r) : undefined;
  }

  async trees(): Promise<AuditTree[]> {
    return (await this.treeRows()).map(toTree);
  }

  /** Runs `compute` over a tree's stored hashes: once to learn which it reads, then on them, read in one turn. */
  private async overStored<T>(logId: string, compute: (get: SubtreeHash) => T): Promise<T> {
    const leaves = new Set<number>();
    const nodes = new Map<string, [number, number]>();
    compute(
      storedSubtrees(logId, (level, index) => {
        if (level === 0) leaves.add(index);
        else nodes.set(`${level}/${index}`, [level, index]);
        return PLACEHOLDER;
      }),
    );
    const got = new Map<string, Uint8Array>();
    if (leaves.size > 0)
      for (const r of await this.db.read<{ i: number; h: Uint8Array }>("SELECT leaf_index AS i, leaf_hash AS h FROM audit_leaves WHERE log_id = $1 AND leaf_index = ANY($2::bigint[])", [
        logId,
        [...leaves],
      ]))
        got.set(`0/${r.i}`, r.h);
    if (nodes.size > 0) {
      const want = [...nodes.values()];
      for (const r of await this.db.read<{ l: number; i: number; h: Uint8Array }>(
        "SELECT n.level AS l, n.idx AS i, n.hash AS h FROM audit_tree_nodes n JOIN unnest($2::int[], $3::bigint[]) AS w(l, i) ON n.level = w.l AND n.idx = w.i WHERE n.log_id = $1",
        [logId, want.map((w) => w[0]), want.map((w) => w[1])],
      ))
        got.set(`${r.l}/${r.i}`, r.h);
    }
    return compute(storedSubtrees(logId, (level, index) => got.get(`${level}/${index}`)));
  }

  private async edge(logId: string, size: number): Promise<RightEdge> {
    const held = this.edges.get(logId);
    if (held && held.size === size) return held;
    const hashes = await this.overStored(logId, (get) => RightEdge.parts(size).map((p) => get(p.level, p.index)));
    const edge = new RightEdge(size, hashes);
    this.edges.set(logId, edge);
    return edge;
  }

  root(logId: string, size: number): Promise<Uint8Array> {
    return this.overStored(logId, (get) => rangeHash(0, size, get));
  }

  /** Gives every committed entry not yet in a tree its leaf, in commit order; answers how many it sealed. */
  seal(limit = SEAL_BATCH): Promise<number> {
    return this.sealNow(limit);
  }

  private async lastSealed(): Promise<number> {
    return (await this.db.read<{ m: number }>("SELECT coalesce(max(entry_seq), 0) AS m FROM audit_leaves"))[0]!.m;
  }

  private async sealNow(limit = SEAL_BATCH): Promise<number> {
    // A cheap look first (no lock): nothing after the last sealed entry.
    if ((await this.db.read("SELECT 1 AS x FROM audit_log WHERE seq > $1 LIMIT 1", [await this.lastSealed()])).length === 0) return 0;
    try {
      return await this.db.transaction(async () => {
        await this.db.q("SELECT pg_advisory_xact_lock($1)", [SEAL_LOCK]);
        const rows = await this.db.q<AuditRow>("SELECT * FROM audit_log WHERE seq > $1 ORDER BY seq LIMIT $2", [await this.lastSealed(), limit]);
        if (rows.length === 0) return 0;
        const edges = new Map<string, RightEdge>();
        for (const r of rows) {
          const logId = logIdOf(r.company_id, r.environment);
          if (edges.has(logId)) continue;
          let tree = await this.treeRow(logId);
          if (!tree) {
            const origin = treeOrigin(this.env, await this.databaseId(), r.company_id, r.environment);
            tree = { log_id: logId, company_id: r.company_id, environment: r.environment as TreeRow["environment"], origin, size: 0 };
            await this.db.q("INSERT INTO audit_trees (log_id, company_id, environment, origin, size) VALUES ($1, $2, $3, $4, 0)", [logId, tree.company_id, tree.environment, origin]);
          }
          edges.set(logId, await this.edge(logId, tree.size));
        }
        const sealed = appendEntries(rows, (_r, logId) => edges.get(logId)!);
        const { leaves, nodes } = sealed;
        await this.db.q(
          "INSERT INTO audit_leaves (log_id, leaf_index, entry_seq, leaf_hash) SELECT l, i, s, decode(h, 'hex') FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[]) AS t(l, i, s, h)",
          [leaves.map((l) => l.logId), leaves.map((l) => l.index), leaves.map((l) => l.seq), leaves.map((l) => hex(l.hash))],
        );
        if (nodes.length > 0)
          await this.db.q(
            "INSERT INTO audit_tree_nodes (log_id, level, idx, hash) SELECT l, v, i, decode(h, 'hex') FROM unnest($1::text[], $2::int[], $3::bigint[], $4::text[]) AS t(l, v, i, h)",
            [nodes.map((n) => n.logId), nodes.map((n) => n.level), nodes.map((n) => n.index), nodes.map((n) => hex(n.hash))],
          );
        const touched = [...edges];
        await this.db.q("UPDATE audit_trees t SET size = w.size FROM unnest($1::text[], $2::bigint[]) AS w(log_id, size) WHERE t.log_id = w.log_id", [
          touched.map(([logId]) => logId),
          touched.map(([, e]) => e.size),
        ]);
        return rows.length;
      });
    } catch (e) {
      // The held edges may have advanced inside the rolled-back transaction.
      this.edges.clear();
      throw e;
    }
  }

  private async databaseId(): Promise<string | undefined> {
    return (await this.db.read<{ value: string }>("SELECT value FROM database_meta WHERE key = 'database_id'"))[0]?.value;
  }

  /** Seals everything committed so far (in batches). */
  async sealAll(): Promise<number> {
    let n = 0;
    for (let k = await this.sealNow(); k > 0; k = await this.sealNow()) n += k;
    return n;
  }

  private async latestRow(logId: string): Promise<CheckpointRow | undefined> {
    return (await this.db.read<CheckpointRow>("SELECT * FROM audit_checkpoints WHERE log_id = $1 ORDER BY tree_size DESC, created_at DESC LIMIT 1", [logId]))[0];
  }

  async latest(logId: string): Promise<AuditCheckpoint | undefined> {
    const r = await this.latestRow(logId);
    return r ? toCheckpoint(r) : undefined;
  }

  async checkpointAt(logId: string, size: number): Promise<AuditCheckpoint | undefined> {
    const [r] = await this.db.read<CheckpointRow>("SELECT * FROM audit_checkpoints WHERE log_id = $1 AND tree_size = $2 ORDER BY created_at DESC LIMIT 1", [logId, size]);
    return r ? toCheckpoint(r) : undefined;
  }

  async checkpoints(logId: string): Promise<AuditCheckpoint[]> {
    return (await this.db.read<CheckpointRow>("SELECT * FROM audit_checkpoints WHERE log_id = $1 ORDER BY tree_size, created_at", [logId])).map(toCheckpoint);
  }

  /** The leaf of an entry (by its seq), if it has been sealed, with the entry's canonical encoding. */
  async leafOf(entrySeq: number): Promise<EntryLeaf | undefined> {
    const [row] = await this.db.read<{ log_id: string; leaf_index: number; leaf_hash: Uint8Array }>("SELECT log_id, leaf_index, leaf_hash FROM audit_leaves WHERE entry_seq = $1", [entrySeq]);
    if (!row) return undefined;
    const [entry] = await this.db.read<AuditRow>("SELECT * FROM audit_log WHERE seq = $1", [entrySeq]);
    if (!entry) throw new AuditTreeError(`the leaf ${row.leaf_index} of ${row.log_id} names entry ${entrySeq}, which is not in the audit log`);
    return { logId: row.log_id, leafIndex: row.leaf_index, leafHash: new Uint8Array(row.leaf_hash), encoding: encodeEntry(entry as unknown as EntryColumns) };
  }

  inclusion(logId: string, leafIndex: number, size: number): Promise<Uint8Array[]> {
    return this.overStored(logId, (get) => inclusionProof(leafIndex, size, get));
  }

  consistency(logId: string, from: number, to: number): Promise<Uint8Array[]> {
    return this.overStored(logId, (get) => consistencyProof(from, to, get));
  }

  // ---- keys ----

  async keys(): Promise<SigningKeyRecord[]> {
    return (await this.db.read<SigningKeyRow>("SELECT * FROM audit_signing_keys ORDER BY created_at, key_id")).map(toKey);
  }

  private async activeKeyRow(): Promise<SigningKeyRow | undefined> {
    return (await this.db.read<SigningKeyRow>("SELECT * FROM audit_signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1"))[0];
  }

  async activeKey(): Promise<SigningKeyRecord | undefined> {
    const r = await this.activeKeyRow();
    return r ? toKey(r) : undefined;
  }

  /** Lists the key when the database has none yet; refuses a key that is not the database's active one. */
  async adoptKey(key: SigningKey, now: number, where: string): Promise<void> {
    if (!mustList(await this.activeKey(), key, where)) return;
    await this.db.transaction(async () => {
      await this.db.q("SELECT pg_advisory_xact_lock($1)", [KEYS_LOCK]);
      if (await this.activeKeyRow()) return;
      await this.db.q("INSERT INTO audit_signing_keys (key_id, public_key, created_at, retired_at) VALUES ($1, $2, $3, NULL) ON CONFLICT DO NOTHING", [key.keyId, base64.encode(key.publicKey), iso(now)]);
    });
  }

  /** Retires the active key and lists `next` as active (inside the caller's transaction). */
  async rotateTo(next: SigningKey, now: number): Promise<void> {
    await this.db.transaction(async () => {
      await this.db.q("SELECT pg_advisory_xact_lock($1)", [KEYS_LOCK]);
      await this.db.q("UPDATE audit_signing_keys SET retired_at = $1 WHERE retired_at IS NULL", [iso(now)]);
      await this.db.q("INSERT INTO audit_signing_keys (key_id, public_key, created_at, retired_at) VALUES ($1, $2, $3, NULL)", [next.keyId, base64.encode(next.publicKey), iso(now)]);
    });
  }

  // ---- checkpoints ----

  /**
   * Seals what is committed, then signs a checkpoint of every tree that grew since its last one (`all`: every tree,
   * even one that did not). Each new checkpoint is an `audit.checkpoint` event of its company and environment.
   */
  async checkpoint(key: SigningKey, now: number, opts: CheckpointOptions = {}): Promise<{ checkpoints: AuditCheckpoint[]; eventSeqs: number[] }> {
    await this.sealAll();
    return this.db.transaction(async () => {
      await this.db.q("SELECT pg_advisory_xact_lock($1)", [SEAL_LOCK]);
      const rows: CheckpointRow[] = [];
      const eventSeqs: number[] = [];
      for (const tree of await this.treeRows()) {
        if (opts.only !== undefined && tree.log_id !== opts.only) continue;
        if (!checkpointDue(tree, await this.latestRow(tree.log_id), key, opts)) continue;
        const row = signedCheckpoint(tree, (await this.edge(tree.log_id, tree.size)).root(), key, now, opts);
        // A checkpoint of this size already signed with this key (by another process) stays the one on record.
        const added = await this.db.run("INSERT INTO audit_checkpoints (log_id, tree_size, created_at, key_id, note) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING", [
          row.log_id,
          row.tree_size,
          row.created_at,
          row.key_id,
          row.note,
        ]);
        if (added === 0) continue;
        rows.push(row);
        const data = checkpointView(row, key.publicKey);
        // Numbered in the events' turn (the sequence lock), as an actor's event is: another node's event with a lower
        // seq still uncommitted is never passed by a reader of the tail.
        const ev = await this.db.one<{ seq: number }>(INSERT_EVENT, [
          newId("evt", now),
          tree.company_id,
          tree.environment,
          "audit.checkpoint",
          "AuditLog",
          tree.origin,
          eventDataBytes(JSON.stringify(data)),
          iso(now),
        ]);
        eventSeqs.push(ev!.seq);
      }
      return { checkpoints: rows.map(toCheckpoint), eventSeqs };
    });
  }

  /** A checkpoint as the API and the event show it; `publicKey` is the signing key's (looked up when not given). */
  async view(checkpoint: AuditCheckpoint, publicKey?: Uint8Array): Promise<CheckpointView> {
    const row: CheckpointRow = { log_id: checkpoint.logId, tree_size: checkpoint.treeSize, created_at: checkpoint.createdAt, key_id: checkpoint.keyId, note: checkpoint.note };
    const pk = publicKey ?? base64.decode((await this.db.read<{ public_key: string }>("SELECT public_key FROM audit_signing_keys WHERE key_id = $1", [row.key_id]))[0]!.public_key);
    return checkpointView(row, pk);
  }
}
