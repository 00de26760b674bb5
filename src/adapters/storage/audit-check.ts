// The offline audit verifier's checking (`caravan audit verify`), written once for both engines over what an
// AuditReader reads (SQLite: a file or backup opened read-only, ./audit-verify.ts; PostgreSQL: one read-only snapshot,
// ./postgres/audit-verify.ts; the SQL is what both read alike, with `?` parameters). Every leaf's entry is encoded and
// hashed again and every checkpoint's root recomputed from those hashes (never from the stored nodes), each
// checkpoint's signature checked against the trusted keys, and checkpoints kept elsewhere (files) checked the same
// way. The first fault is answered with where it is: a leaf index or a checkpoint.
import { base64 } from "@scure/base";
import {
  ENTRY_FIELDS_V1,
  EMPTY_ROOT,
  encodeEntry,
  leafHash,
  parseCheckpointText,
  RightEdge,
  verifyNote,
  type EntryColumns,
} from "../../domain/audit-tree.ts";
import "../crypto/hash.ts";
import type { KeptCheckpoint, LogResult, VerifyOptions, VerifyResult } from "../../ports/audit-verify.ts";

class Fault extends Error {}

const PAGE = 10_000;
function eq(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

interface Tree {
  log_id: string;
  company_id: string;
  environment: string;
  origin: string;
  size: number;
}

interface Cp {
  desc: string;
  size: number;
  root: Uint8Array;
  time: string | null;
}

/** What the verifier reads through: one engine's read-only view of a database. */
export interface AuditReader {
  hasTable(name: string): Promise<boolean>;
  /** The rows of a SELECT written with `?` parameters. */
  all<T>(sql: string, ...params: (string | number)[]): Promise<T[]>;
}

export async function verifyAuditLog(c: AuditReader, o: VerifyOptions): Promise<VerifyResult> {
  const get = async <T>(sql: string, ...params: (string | number)[]): Promise<T | null> => (await c.all<T>(sql, ...params))[0] ?? null;
  const now = o.now ?? (() => performance.now());
  const t0 = now();
  const progressEvery = o.progressEvery ?? 100_000;
  const logs: LogResult[] = [];
  let entries = 0;
  let checkpoints = 0;
  const trustedFrom = o.trusted ? "--public-key" : "database";
  const done = (failure?: string): VerifyResult => {
    const seconds = (now() - t0) / 1000;
    return { ok: failure === undefined, failure, logs, entries, checkpoints, seconds, secondsPerMillion: entries > 0 ? (seconds * 1_000_000) / entries : null, trustedFrom };
  };
  if (!(await c.hasTable("audit_trees")) || !(await c.hasTable("audit_log"))) return done("the database has no audit tree (a database of an older version, or not Caravan's)");
  const trusted =
    o.trusted ?? (await c.all<{ public_key: string }>("SELECT public_key FROM audit_signing_keys")).map((r) => base64.decode(r.public_key));
  const trees = await c.all<Tree>("SELECT * FROM audit_trees ORDER BY log_id");
  const kept: (KeptCheckpoint & { parsed: ReturnType<typeof parseCheckpointText> })[] = [];
  for (const k of o.kept) {
    let parsed;
    try {
      parsed = parseCheckpointText(k.note.slice(0, k.note.lastIndexOf("\n\n") + 1));
    } catch (e) {
      return done(`checkpoint in ${k.source}: ${(e as Error).message}`);
    }
    if (!trees.some((t) => t.origin === parsed.origin)) return done(`checkpoint in ${k.source}: its log ${parsed.origin} is not in this database (removed, or another database)`);
    kept.push({ ...k, parsed });
  }
  let sealedInTrees = 0;
  const fields = ENTRY_FIELDS_V1.map((f) => `a.${f} AS ${f}`).join(", ");
  const pageOf = (
    `SELECT l.leaf_index AS leaf_index, l.entry_seq AS entry_seq, l.leaf_hash AS leaf_hash, ${fields} FROM audit_leaves l LEFT JOIN audit_log a ON a.seq = l.entry_seq WHERE l.log_id = ? AND l.leaf_index >= ? ORDER BY l.leaf_index LIMIT ?`
  );
  try {
    for (const tree of trees) {
      // ---- its checkpoints: signed by a trusted key, of this log, stored as signed ----
      const cps: Cp[] = [];
      const check = (desc: string, note: string, storedSize?: number): void => {
        let by: Uint8Array[];
        let text: string;
        try {
          ({ by, text } = verifyNote(note, tree.origin, trusted));
        } catch (e) {
          throw new Fault(`checkpoint ${desc}: ${(e as Error).message}`);
        }
        if (by.length === 0) throw new Fault(`checkpoint ${desc}: not signed by a trusted key${o.trusted ? " (--public-key)" : ""}`);
        const p = parseCheckpointText(text);
        if (p.origin !== tree.origin) throw new Fault(`checkpoint ${desc}: it is of the log ${p.origin}`);
        if (storedSize !== undefined && storedSize !== p.size) throw new Fault(`checkpoint ${desc}: its stored tree size ${storedSize} is not the signed size ${p.size}`);
        cps.push({ desc, size: p.size, root: p.root, time: p.time });
      };
      for (const r of await c.all<{ tree_size: number; note: string }>("SELECT tree_size, note FROM audit_checkpoints WHERE log_id = ? ORDER BY tree_size", tree.log_id))
        check(`${r.tree_size} of ${tree.origin}`, r.note, Number(r.tree_size));
      for (const k of kept) if (k.parsed!.origin === tree.origin) check(`${k.parsed!.size} of ${tree.origin} (${k.source})`, k.note);
      // One history: checkpoints signed later never have fewer entries, and one size has one root.
      const byTime = cps.filter((x) => x.time !== null).sort((a, b) => (a.time! < b.time! ? -1 : a.time! > b.time! ? 1 : a.size - b.size));
      for (let i = 1; i < byTime.length; i++)
        if (byTime[i].size < byTime[i - 1].size) throw new Fault(`checkpoint ${byTime[i].desc}: signed after checkpoint ${byTime[i - 1].desc} with fewer entries`);
      cps.sort((a, b) => a.size - b.size);
      for (let i = 1; i < cps.length; i++)
        if (cps[i].size === cps[i - 1].size && !eq(cps[i].root, cps[i - 1].root)) throw new Fault(`checkpoint ${cps[i].desc}: another root than checkpoint ${cps[i - 1].desc} for the same size`);
      checkpoints += cps.length;
      // ---- its leaves, in order: each entry encoded and hashed again ----
      const edge = new RightEdge(0);
      let next = 0;
      let at = 0;
      const atSize = () => {
        for (; next < cps.length && cps[next].size === edge.size; next++)
          if (!eq(cps[next].root, edge.size === 0 ? EMPTY_ROOT : edge.root()))
            throw new Fault(`checkpoint ${cps[next].desc}: its root is not the root of the log's first ${edge.size} entries`);
      };
      atSize();
      for (;;) {
        const rows = await c.all<EntryColumns & { leaf_index: number; entry_seq: number; leaf_hash: Uint8Array }>(pageOf, tree.log_id, at, PAGE);
        for (const r of rows) {
          const i = edge.size;
          const where = () => `leaf ${i} of ${tree.origin}`;
          if (Number(r.leaf_index) !== i) throw new Fault(`${where()}: missing (the next leaf is ${r.leaf_index})`);
          if (r.id === null) throw new Fault(`${where()}: its entry (seq ${r.entry_seq}) is missing`);
          if (r.company_id !== tree.company_id || r.environment !== tree.environment) throw new Fault(`${where()}: entry ${r.id} belongs to another log`);
          const h = leafHash(encodeEntry(r));
          if (!eq(h, r.leaf_hash)) throw new Fault(`${where()}: entry ${r.id} does not match its leaf hash (changed after it was sealed)`);
          edge.append(h);
          if (next < cps.length && cps[next].size === edge.size) atSize();
          if (edge.size % progressEvery === 0) o.progress?.(`verified ${edge.size} of ${tree.size} leaves of ${tree.origin} (${((now() - t0) / 1000).toFixed(1)} s)`);
        }
        entries += rows.length;
        if (rows.length < PAGE) break;
        at = edge.size;
      }
      if (next < cps.length) throw new Fault(`checkpoint ${cps[next].desc}: signs ${cps[next].size} entries but the log has ${edge.size} (entries removed from its end?)`);
      if (tree.size > edge.size) throw new Fault(`leaf ${edge.size} of ${tree.origin}: missing (the tree records ${tree.size} leaves)`);
      // An entry of this log without a leaf before the last sealed one: its leaf was removed.
      const lastSealed = (await get<{ m: number }>("SELECT coalesce(max(entry_seq), 0) AS m FROM audit_leaves"))!;

      // Counted on the (company, environment, seq) index first; the slower search runs only when the counts differ.
      const upTo = Number(lastSealed.m);
      const sealedEntries = Number(
        (await get<{ n: number }>("SELECT count(*) AS n FROM audit_log WHERE company_id = ? AND environment = ? AND seq <= ?", tree.company_id, tree.environment, upTo))!.n,
      );
      const orphan = sealedEntries === edge.size ? null : await get<{ id: string; seq: number }>(
        "SELECT a.id AS id, a.seq AS seq FROM audit_log a WHERE a.company_id = ? AND a.environment = ? AND a.seq <= ? AND NOT EXISTS (SELECT 1 FROM audit_leaves l WHERE l.entry_seq = a.seq) LIMIT 1",
        tree.company_id, tree.environment, upTo,
      );
      if (orphan) throw new Fault(`entry ${orphan.id} (seq ${orphan.seq}) of ${tree.origin} has no leaf, though later entries do`);
      const unsealed = Number(
        (await get<{ n: number }>("SELECT count(*) AS n FROM audit_log WHERE company_id = ? AND environment = ? AND seq > ?", tree.company_id, tree.environment, Number(lastSealed.m)))!.n,
      );
      logs.push({ origin: tree.origin, leaves: edge.size, checkpoints: cps.length, unsealed });
      sealedInTrees += sealedEntries;
    }
    // Entries of a company and environment that has no tree at all, older than the last sealed entry.
    const upTo = Number((await get<{ m: number }>("SELECT coalesce(max(entry_seq), 0) AS m FROM audit_leaves"))!.m);
    const sealedAll = Number((await get<{ n: number }>("SELECT count(*) AS n FROM audit_log WHERE seq <= ?", upTo))!.n);
    const stray = sealedAll === sealedInTrees ? null : await get<{ id: string; company_id: string; environment: string }>(
      "SELECT a.id AS id, a.company_id AS company_id, a.environment AS environment FROM audit_log a WHERE a.seq <= (SELECT coalesce(max(entry_seq), 0) FROM audit_leaves) AND NOT EXISTS (SELECT 1 FROM audit_trees t WHERE t.company_id = a.company_id AND t.environment = a.environment) LIMIT 1",
    );
    if (stray) throw new Fault(`entry ${stray.id} of ${stray.company_id}/${stray.environment} belongs to no tree (its tree was removed)`);
  } catch (e) {
    if (e instanceof Fault) return done(e.message);
    throw e;
  }
  return done();
}
