// The transfer search index in its own database file, filled off the request thread (docs/performance.md, "The
// search index in its own file").
//
// The main file keeps a queue (`transfers_search_pending`, migration 0021): triggers append a transfer's rowid, numbered
// by `seq`, whenever a transfer is inserted, deleted, or changes a searched column. The search file (`<path>-search`)
// holds an FTS5 trigram index of those columns and `indexed_through`, the last queue entry it reflects. Indexing a
// batch (indexBatch) reads the queue and the transfers from the main file and writes only the search file, in one
// transaction of the search file, so a connection that indexes never takes the main file's write lock: the storage
// worker (checkpoint-worker.ts) does it on its own thread, and the server's thread only trims the indexed entries
// off the queue (trimQueue, one small delete per second).
//
// A search reads the index for the candidates up to `indexed_through` and the queue after it (a few entries), then
// checks the text on the stored columns, so a transfer is found from its commit on, indexed or not.
//
// Why a second file: an FTS5 insert costs more than the rest of a below-threshold create's statements together
// (~110 trigrams per transfer); on the main file it would either run on the server's thread or hold the main file's
// write lock while the server waits. SQLite locks per file, so the worker's transactions and the server's commits
// never wait for each other.
//
// The file is derived data: it is checked against the main file when the database is opened (reconcile) and, when
// it is missing, belongs to another database, is behind the trimmed queue or ahead of it (a restored backup), it is
// emptied and every transfer is queued again. Nothing else depends on it.
import type { SqlClient, SqlStatement, SqlValue } from "./types.ts";
import { runOnce } from "./statements.ts";

/** The schema name the search file is attached under, on every connection that uses it. */
export const SEARCH = "search";

/** The columns a search finds a transfer by, in the index's order. */
export const SEARCHED = ["id", "external_id", "originator_vasp_id", "beneficiary_vasp_id", "originator_address", "beneficiary_address"] as const;

/** The search file's layout version: another one is rebuilt. */
const FORMAT = "1";

/** Where the search file of a database file lives; null for in-memory databases (their index is in memory too). */
export function searchFilePath(path: string): string | null {
  if (path === ":memory:" || path === "" || path.startsWith("file:")) return null;
  return `${path}-search`;
}

/** A connection that sees the main file as `main` and the search file as `search`. */
export interface SearchConnection {
  stmt(sql: string): SqlStatement;
  exec(sql: string): void;
}

/** Attaches the search file (`:memory:` for an in-memory database) and creates its tables when new. */
export function attachSearch(client: SqlClient, file: string | null): void {
  runOnce(client, `ATTACH DATABASE ? AS ${SEARCH}`, (st) => st.run(file ?? ":memory:"));
  if (file !== null) {
    const mode = runOnce(client, `PRAGMA ${SEARCH}.journal_mode = WAL`, (st) => st.get()) as { journal_mode?: string } | undefined;
    if (mode?.journal_mode !== "wal") throw new Error(`the search file's journal_mode is ${mode?.journal_mode}, WAL required`);
    client.exec(`PRAGMA ${SEARCH}.synchronous = NORMAL`);
  }
  // Contentless (the text stays in `transfers`), trigram, no positions: a search matches every trigram of its text
  // and then checks the text on the stored columns. contentless_delete lets a changed transfer be replaced.
  client.exec(
    `CREATE VIRTUAL TABLE IF NOT EXISTS ${SEARCH}.transfers_search USING fts5(${SEARCHED.join(", ")}, content='', contentless_delete=1, tokenize='trigram', detail='none')`,
  );
  client.exec(`CREATE TABLE IF NOT EXISTS ${SEARCH}.search_state (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
}

const state = (c: SearchConnection, key: string): string | undefined =>
  (c.stmt(`SELECT value FROM ${SEARCH}.search_state WHERE key = ?`).get(key) as { value: string } | undefined)?.value;
const setState = (c: SearchConnection, key: string, value: string): void =>
  void c.stmt(`INSERT INTO ${SEARCH}.search_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(key, value);

/** The last queue entry the index reflects (0: none). */
export function indexedThrough(c: SearchConnection): number {
  return Number(state(c, "indexed_through") ?? 0);
}

/**
 * Checks the search file against the main file (`databaseId`: the main file's own identity). Consistent when it
 * belongs to this database, has this format, and its mark lies within the queue: every entry after the mark is
 * still queued (the queue is only trimmed before a mark, and keeps the entry at it) and the mark is not ahead of the
 * queue (a restored backup's queue ends earlier). Otherwise the index is emptied and every transfer queued again.
 */
export function reconcile(c: SearchConnection, databaseId: string): "kept" | "rebuilt" {
  if (belongs(c, databaseId)) return "kept";
  // The queue and the mark live in two files, so the reads above are two snapshots: while the server's storage worker
  // indexes and the server trims the queue (an open by the CLI beside a running server), the mark can be read past
  // the queue's end, or the queue's start past the mark, for a moment. Only a mismatch that holds while both files'
  // write locks are held (nothing can move) is real: it is checked again under them, and only then is every transfer
  // queued again (a main-file write; entries already queued stay, indexing twice is harmless). The index is then
  // emptied with its mark at the queue's end before them. A crash in between is found again next time. Taking both
  // locks first (BEGIN IMMEDIATE) makes a commit beside it wait rather than fail.
  let before: number | null = null;
  lockedBoth(c, () => {
    if (belongs(c, databaseId)) return;
    before = (c.stmt("SELECT coalesce(max(seq), 0) AS hi FROM main.transfers_search_pending").get() as { hi: number }).hi;
    c.stmt("INSERT INTO main.transfers_search_pending (transfer_rowid) SELECT rowid FROM main.transfers").run();
  });
  if (before === null) return "kept";
  lockedBoth(c, () => {
    c.stmt(`DELETE FROM ${SEARCH}.transfers_search`).run();
    setState(c, "database", databaseId);
    setState(c, "format", FORMAT);
    setState(c, "indexed_through", String(before));
  });
  return "rebuilt";
}

/** Whether the search file is this database's, in this format, with its mark within the queue. */
function belongs(c: SearchConnection, databaseId: string): boolean {
  const q = c.stmt("SELECT min(seq) AS lo, max(seq) AS hi FROM main.transfers_search_pending").get() as { lo: number | null; hi: number | null };
  const mark = indexedThrough(c);
  return state(c, "database") === databaseId && state(c, "format") === FORMAT && (q.hi === null ? mark === 0 : q.lo! <= mark && mark <= q.hi);
}

/** A transaction holding the write locks of every attached file (main and search), waiting for them as any lock. */
function lockedBoth<T>(c: SearchConnection, fn: () => T): T {
  return inTransaction(c, fn, "BEGIN IMMEDIATE");
}

/** A deferred transaction by default: each file is locked for writing only when written (`BEGIN IMMEDIATE` locks every attached file, which only reconcile asks for). */
function inTransaction<T>(c: SearchConnection, fn: () => T, begin = "BEGIN"): T {
  c.exec(begin);
  try {
    const out = fn();
    c.exec("COMMIT");
    return out;
  } catch (e) {
    try {
      c.exec("ROLLBACK");
    } catch {
      /* the transaction is gone already */
    }
    throw e;
  }
}

/**
 * Indexes up to `limit` queue entries after the mark and moves the mark, in one transaction that writes only the
 * search file (a deferred BEGIN: the main file is only read). Answers how many entries it took; the callers repeat
 * while it answers `limit`. A transfer queued twice is indexed once with its current columns; a deleted one leaves
 * the index.
 */
export function indexBatch(c: SearchConnection, limit: number): number {
  return inTransaction(c, () => {
    // A write first: the search file's write lock is taken (waiting for it, as any lock) before anything is read,
    // so the snapshot read next is the newest (a deferred transaction that read first could not write after another
    // indexer's commit). The main file stays unlocked: it is only read.
    c.stmt(`UPDATE ${SEARCH}.search_state SET value = value WHERE key = 'indexed_through'`).run();
    const from = indexedThrough(c);
    const r = c.stmt("SELECT max(seq) AS upto, count(*) AS n FROM (SELECT seq FROM main.transfers_search_pending WHERE seq > ? ORDER BY seq LIMIT ?)").get(from, limit) as {
      upto: number | null;
      n: number;
    };
    if (r.upto === null) return 0;
    const range: SqlValue[] = [from, r.upto];
    const queued = "SELECT transfer_rowid FROM main.transfers_search_pending WHERE seq > ? AND seq <= ?";
    c.stmt(
      `INSERT OR REPLACE INTO ${SEARCH}.transfers_search (rowid, ${SEARCHED.join(", ")})
         SELECT t.rowid, ${SEARCHED.map((x) => `t.${x}`).join(", ")} FROM main.transfers t WHERE t.rowid IN (${queued})`,
    ).run(...range);
    c.stmt(
      `DELETE FROM ${SEARCH}.transfers_search WHERE rowid IN (SELECT p.transfer_rowid FROM main.transfers_search_pending p
         WHERE p.seq > ? AND p.seq <= ? AND NOT EXISTS (SELECT 1 FROM main.transfers t WHERE t.rowid = p.transfer_rowid))`,
    ).run(...range);
    setState(c, "indexed_through", String(r.upto));
    return r.n;
  });
}

/**
 * Deletes the queue entries before the search file's mark, on `primary` (the main file's writer), in its own write
 * transaction, only when there are any (a read first: the sweep asks every second). The entry at the mark stays:
 * the queue's next seq is then always after it, even when all are trimmed.
 */
export function trimQueue(search: SearchConnection, primary: { stmt(sql: string): SqlStatement; tx<T>(fn: () => T): T }): number {
  const mark = indexedThrough(search);
  if (mark === 0 || !primary.stmt("SELECT 1 AS x FROM main.transfers_search_pending WHERE seq < ? LIMIT 1").get(mark)) return 0;
  return primary.tx(() => primary.stmt("DELETE FROM main.transfers_search_pending WHERE seq < ?").run(mark).changes);
}

/** The index's mark in SQL, for statements on a connection with the search file attached: entries after it are not indexed yet. */
export const MARK_SQL = `coalesce((SELECT CAST(value AS INTEGER) FROM ${SEARCH}.search_state WHERE key = 'indexed_through'), 0)`;

/** Queue entries not yet indexed. */
export function unindexed(c: SearchConnection): number {
  return (c.stmt(`SELECT count(*) AS n FROM main.transfers_search_pending WHERE seq > ${MARK_SQL}`).get() as { n: number }).n;
}
