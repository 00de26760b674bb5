// Transfers in SQLite (src/ports/transfers.ts): reads for the API; writes only from the actors that own a transfer.
// Rows stay here: every method answers `Transfer` records (toTransfer), and takes them (insert, update).
import type { Environment } from "../../../domain/types.ts";
import { FINAL_STATES, STUCK_FAILED_MS, STUCK_FAILED_PROTOCOLS, UNTAKEN_STATES } from "../../../domain/transfers.ts";
import type { Storage, SqlValue, SearchStore } from "../types.ts";
import type { DueTransfer, Transfer, TransferFilter, TransferRepository } from "../../../ports/transfers.ts";
import { MARK_SQL, SEARCH, SEARCHED, indexBatch, trimQueue, unindexed } from "../search-index.ts";

/**
 * The FTS5 query for a search in an index without positions (detail=none): every trigram of the text, each quoted
 * (a quoted trigram is one token), joined by AND. null below 3 characters (no trigram: the search scans).
 */
export function trigramQuery(search: string): string | null {
  // Not lowercased here: the trigram tokenizer folds the case of the query's tokens as it folded the indexed text.
  const chars = Array.from(search);
  if (chars.length < 3) return null;
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) grams.add(chars.slice(i, i + 3).join(""));
  return [...grams].map((g) => `"${g.replace(/"/g, '""')}"`).join(" AND ");
}

/** Up to this many search candidates are looked up by rowid and sorted; more, and the list is walked in order. */
const SEARCH_CANDIDATES = 2000;

/** Not in a final state, in the words of the partial indexes' WHERE (db/schema/transfers.ts); PostgreSQL's are the same. */
export const ACTIVE = `state NOT IN (${FINAL_STATES.map((s) => `'${s}'`).join(", ")})`;
if (ACTIVE !== "state NOT IN ('completed', 'rejected', 'cancelled')") throw new Error(`final states changed: update the partial indexes of transfers (${ACTIVE})`);

/**
 * A customer's transfers not yet final (?1 company, ?2 environment, ?3 customer): one branch per side, each from its
 * partial index (transfers_active_originator/_beneficiary, whose WHERE is ACTIVE). Without INDEXED BY the planner
 * walks the company's whole transfer list. SQLite-only SQL, so it stays in this repository.
 */
export const ACTIVE_FOR_CUSTOMER = `SELECT id, created_at FROM transfers INDEXED BY transfers_active_originator WHERE originator_customer_id = ?3 AND ${ACTIVE} AND company_id = ?1 AND environment = ?2
  UNION SELECT id, created_at FROM transfers INDEXED BY transfers_active_beneficiary WHERE beneficiary_customer_id = ?3 AND ${ACTIVE} AND company_id = ?1 AND environment = ?2
  ORDER BY created_at, id`;
import { listCount } from "./customers.ts";
import { newestFirst } from "./keyset.ts";
import type { RowOf } from "./row.ts";
import { getTableColumns } from "drizzle-orm";
import { transfers, type transfers as transfersTable } from "../../../../db/schema/transfers.ts";

/** A transfer as its table holds it: private to storage (everything above sees `Transfer`, src/ports/transfers.ts). */
export type TransferRow = RowOf<typeof transfersTable>;

/** Every column of the table, in its order (SQL name and record field): the insert's SQL is one fixed text, built once. */
const TABLE_COLUMNS = Object.entries(getTableColumns(transfers)).map(([field, c]) => ({ field: field as keyof Transfer, name: c.name as keyof TransferRow }));
/** The table's column names in TABLE_COLUMNS order: what `insertValues` answers the values of (both engines' insert). */
export const INSERT_COLUMNS: readonly string[] = TABLE_COLUMNS.map((c) => c.name);
const INSERT = `INSERT INTO transfers (${INSERT_COLUMNS.join(", ")}) VALUES (${TABLE_COLUMNS.map(() => "?").join(", ")})`;
/** A record field's column. */
const COLUMN_OF = new Map<string, string>(TABLE_COLUMNS.map((c) => [c.field, c.name]));
/** The fields held as JSON text, and the flag held as 0/1. */
const JSON_FIELDS = new Set<string>(["thresholdInfo", "checks", "attempts", "messages", "history"]);
const FLAG_FIELDS = new Set<string>(["isUnhostedWallet"]);

/** A field's value as its column holds it. */
function encode(field: string, v: unknown): SqlValue {
  if (v === undefined || v === null) return null;
  if (JSON_FIELDS.has(field)) return JSON.stringify(v);
  if (FLAG_FIELDS.has(field)) return v ? 1 : 0;
  return v as SqlValue;
}

/** A JSON list column: "[]", what most lists of most transfers hold, is answered without a parse. */
const list = <T>(text: string): T[] => (text === "[]" ? [] : (JSON.parse(text) as T[]));

/**
 * The record of a row (written out field by field: this runs on every transfer read). `thresholdInfo` and `history`
 * are parsed when first read (a detail read or a list page reads neither), then kept: an accessor pair, own and
 * enumerable, so spreading, JSON.stringify, structuredClone and a comparison see a plain value, and an assignment or
 * a change of the parsed value sticks.
 */
export function toTransfer(r: TransferRow): Transfer {
  let thresholdInfo: Transfer["thresholdInfo"] = null;
  let history: Transfer["history"] = [];
  let thresholdRead = false;
  let historyRead = false;
  const thresholdText = r.threshold_info;
  const historyText = r.history;
  return {
    id: r.id,
    companyId: r.company_id,
    environment: r.environment,
    direction: r.direction,
    state: r.state,
    status: r.status,
    externalId: r.external_id,
    asset: r.asset,
    assetId: r.asset_id,
    amount: r.amount,
    network: r.network,
    blockchainType: r.blockchain_type,
    originatorCustomerId: r.originator_customer_id,
    originatorAddress: r.originator_address,
    beneficiaryAddress: r.beneficiary_address,
    beneficiaryCustomerId: r.beneficiary_customer_id,
    isUnhostedWallet: r.is_unhosted_wallet === 1,
    originatorSealed: r.originator_sealed,
    beneficiarySealed: r.beneficiary_sealed,
    originatorVaspId: r.originator_vasp_id,
    originatorVaspName: r.originator_vasp_name,
    beneficiaryVaspId: r.beneficiary_vasp_id,
    beneficiaryVaspName: r.beneficiary_vasp_name,
    preferredProtocol: r.preferred_protocol,
    protocol: r.protocol,
    providerExternalId: r.provider_external_id,
    matchedAt: r.matched_at,
    oursStatus: r.ours_status,
    theirsStatus: r.theirs_status,
    rejectionReason: r.rejection_reason,
    rejectionDetailsSealed: r.rejection_details_sealed,
    txHash: r.tx_hash,
    sanctionsStatus: r.sanctions_status,
    sanctionsProvider: r.sanctions_provider,
    get thresholdInfo() {
      if (!thresholdRead) {
        thresholdInfo = thresholdText ? (JSON.parse(thresholdText) as Record<string, unknown>) : null;
        thresholdRead = true;
      }
      return thresholdInfo;
    },
    set thresholdInfo(v) {
      thresholdInfo = v;
      thresholdRead = true;
    },
    fxRateId: r.fx_rate_id,
    checks: list(r.checks),
    attempts: list(r.attempts),
    messages: list(r.messages),
    get history() {
      if (!historyRead) {
        history = list(historyText);
        historyRead = true;
      }
      return history;
    },
    set history(v) {
      history = v;
      historyRead = true;
    },
    expiresAt: r.expires_at,
    acceptedAt: r.accepted_at,
    completedAt: r.completed_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** A record's values as the columns hold them, in INSERT_COLUMNS order. */
export function insertValues(t: Transfer): SqlValue[] {
  const values = new Array<SqlValue>(TABLE_COLUMNS.length);
  for (let i = 0; i < TABLE_COLUMNS.length; i++) {
    const f = TABLE_COLUMNS[i].field;
    values[i] = encode(f, t[f]);
  }
  return values;
}

/**
 * The columns an update writes and their values, in the same order. A field given as undefined is written NULL, as the
 * row's column was before the port; a field the record does not have is refused.
 */
export function updateColumns(set: Partial<Transfer>): { columns: string[]; values: SqlValue[] } {
  const columns: string[] = [];
  const values: SqlValue[] = [];
  for (const [field, v] of Object.entries(set)) {
    const col = COLUMN_OF.get(field);
    if (!col) throw new Error(`a transfer has no field ${field}`);
    columns.push(col);
    values.push(encode(field, v));
  }
  return { columns, values };
}

const one = (r: unknown): Transfer | undefined => (r ? toTransfer(r as TransferRow) : undefined);

export class Transfers implements TransferRepository {
  /** Search reads an index in its own file, fed from a queue (search-index.ts). */
  readonly searchQueued = true;

  constructor(private readonly s: Storage) {}

  get(companyId: string, env: Environment, id: string): Promise<Transfer | undefined> {
    return this.s.run(() => one(this.s.stmt("SELECT * FROM transfers WHERE id = ? AND company_id = ? AND environment = ?").get(id, companyId, env)));
  }

  byProviderReference(companyId: string, env: Environment, protocol: string, providerExternalId: string): Promise<Transfer | undefined> {
    return this.s.run(() =>
      one(this.s.stmt("SELECT * FROM transfers WHERE company_id = ? AND environment = ? AND provider_external_id = ? AND protocol = ?").get(companyId, env, providerExternalId, protocol)),
    );
  }

  outgoingProviderB(companyId: string, env: Environment, providerExternalId: string, beneficiaryVaspId: string): Promise<Transfer | undefined> {
    return this.s.run(() =>
      one(
        this.s
          .stmt("SELECT * FROM transfers WHERE company_id = ? AND environment = ? AND provider_external_id = ? AND direction = 'outgoing' AND protocol = 'provider_b' AND beneficiary_vasp_id = ?")
          .get(companyId, env, providerExternalId, beneficiaryVaspId),
      ),
    );
  }

  outgoingProviderBByTx(companyId: string, env: Environment, txHashes: readonly string[], beneficiaryVaspId: string): Promise<Transfer[]> {
    return this.s.run(() =>
      (
        this.s
          .stmt(
            `SELECT * FROM transfers WHERE company_id = ? AND environment = ? AND tx_hash IN (SELECT value FROM json_each(?))
           AND direction = 'outgoing' AND protocol = 'provider_b' AND beneficiary_vasp_id = ? ORDER BY created_at, id`,
          )
          .all(companyId, env, JSON.stringify(txHashes), beneficiaryVaspId) as unknown as TransferRow[]
      ).map(toTransfer),
    );
  }

  byExternalId(companyId: string, env: Environment, externalId: string): Promise<Transfer | undefined> {
    return this.s.run(() => one(this.s.stmt("SELECT * FROM transfers WHERE company_id = ? AND environment = ? AND external_id = ?").get(companyId, env, externalId)));
  }

  insert(t: Transfer): Promise<void> {
    return this.s.run(() => {
      this.s.stmt(INSERT).run(...insertValues(t));
    });
  }

  update(id: string, set: Partial<Transfer>): Promise<void> {
    return this.s.run(() => {
      const { columns, values } = updateColumns(set);
      if (!columns.length) return;
      this.s.stmt(`UPDATE transfers SET ${columns.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`).run(...values, id);
    });
  }

  /** Transfers of the customer (either side) not in a final state: erasure waits for them (Part 1, IN_FLIGHT). */
  activeForCustomer(companyId: string, env: Environment, customerId: string): Promise<string[]> {
    return this.s.run(() => (this.s.stmt(ACTIVE_FOR_CUSTOMER).all(companyId, env, customerId) as { id: string }[]).map((r) => r.id));
  }

  /** The search index's connection; a repository over storage opened without it cannot search. */
  private get search(): SearchStore {
    if (!this.s.search) throw new Error("the transfer search index is not open on this storage");
    return this.s.search;
  }

  /**
   * The filter's WHERE, and the connection to run it on: a search that uses the index runs on the search index's
   * connection (it sees the transfers and the index; search-index.ts), anything else on the storage's own.
   */
  private where(companyId: string, env: Environment, f: TransferFilter): { sql: string; args: SqlValue[]; on: Pick<Storage, "stmt"> } {
    const parts = ["company_id = ?", "environment = ?"];
    const args: SqlValue[] = [companyId, env];
    let on: Pick<Storage, "stmt"> = this.s;
    if (f.direction !== undefined) (parts.push("direction = ?"), args.push(f.direction));
    if (f.state !== undefined) (parts.push("state = ?"), args.push(f.state));
    if (f.status !== undefined) (parts.push("status = ?"), args.push(f.status));
    if (f.protocol !== undefined) (parts.push("protocol = ?"), args.push(f.protocol));
    if (f.search !== undefined) {
      const text = trigramQuery(f.search);
      const needle = f.search.toLowerCase();
      const scan = `(${SEARCHED.map((c) => `instr(lower(coalesce(${c}, '')), ?) > 0`).join(" OR ")})`;
      if (text !== null) {
        // Candidates: the indexed transfers holding every trigram of the text (the index keeps no positions), and
        // the transfers queued after the index's mark (a few rows). Then the text itself, in one piece.
        const few = this.fewCandidates(text);
        if (few) {
          // Few: they are looked up by rowid and sorted, instead of walking the company's list for them (~80 ms at a
          // million transfers). `+` keeps the planner off the list indexes, whose order would not be needed.
          parts[0] = "+company_id = ?";
          parts[1] = "+environment = ?";
          parts.push(`rowid IN (SELECT value FROM json_each(?)) AND ${scan}`);
          args.push(JSON.stringify(few));
        } else {
          on = this.search;
          parts.push(
            `(rowid IN (SELECT rowid FROM ${SEARCH}.transfers_search WHERE transfers_search MATCH ?) OR rowid IN (SELECT transfer_rowid FROM transfers_search_pending WHERE seq > ${MARK_SQL})) AND ${scan}`,
          );
          args.push(text);
        }
      } else parts.push(scan);
      for (let i = 0; i < SEARCHED.length; i++) args.push(needle);
    }
    return { sql: parts.join(" AND "), args, on };
  }

  /**
   * The rowids a search could match (the index's candidates and the queue after its mark), when there are at most
   * SEARCH_CANDIDATES of them; null when there are more (the list is then walked in order instead). One snapshot
   * of both files: the mark, the index as of that mark, and the queue after it.
   */
  private fewCandidates(text: string): number[] | null {
    const cap = SEARCH_CANDIDATES;
    const s = this.search;
    return s.read(() => {
      const indexed = s.stmt(`SELECT rowid AS r FROM ${SEARCH}.transfers_search WHERE transfers_search MATCH ? LIMIT ?`).values(text, cap + 1) as [number][];
      if (indexed.length > cap) return null;
      const queued = s.stmt(`SELECT transfer_rowid FROM transfers_search_pending WHERE seq > ${MARK_SQL} LIMIT ?`).values(cap + 1 - indexed.length) as [number][];
      if (indexed.length + queued.length > cap) return null;
      return [...new Set([...indexed.map((r) => r[0]), ...queued.map((r) => r[0])])];
    });
  }

  /**
   * Indexes up to `limit` queued transfers on this thread (in memory, or when the storage worker does not run) and
   * answers how many; the sweep repeats while it answers `limit`.
   */
  indexPending(limit: number): Promise<number> {
    return this.s.run(() => indexBatch(this.search, limit));
  }

  /** Trims the queue entries the index already reflects (the main file's write transaction). */
  trimSearchQueue(): Promise<number> {
    return this.s.run(() => trimQueue(this.search, this.s));
  }

  /**
   * Transfers due to be cancelled at `now` (ISO); the expiry sweep tells each one's actor, which checks again. Outgoing
   * transfers no provider has taken, past their `expiresAt`; and failed transfers no action can move on
   * (`isStuckFailedExpired`: provider_a and provider_b), unchanged `STUCK_FAILED_MS` and past their `expiresAt` if
   * any. Per company and environment through `transfers_state`: only the few transfers still queued, discovering,
   * held or failed are read, never the final ones.
   */
  dueForCancel(nowIso: string, limit = 500): Promise<DueTransfer[]> {
    return this.s.run(() => this.dueRows(nowIso, limit).map((r) => ({ id: r.id, companyId: r.company_id, environment: r.environment })));
  }

  private dueRows(nowIso: string, limit: number): { id: string; company_id: string; environment: Environment }[] {
    type Due = { id: string; company_id: string; environment: Environment };
    const out: Due[] = [];
    const companies = this.s.stmt("SELECT id FROM companies").all() as { id: string }[];
    const untaken = this.s.stmt(
      `SELECT id, company_id, environment FROM transfers
        WHERE company_id = ? AND environment = ? AND state IN (${UNTAKEN_STATES.map((x) => `'${x}'`).join(", ")})
          AND direction = 'outgoing' AND protocol IS NULL AND expires_at <= ? LIMIT ?`,
    );
    const stuck = this.s.stmt(
      `SELECT id, company_id, environment FROM transfers
        WHERE company_id = ? AND environment = ? AND state = 'failed'
          AND protocol IN (${STUCK_FAILED_PROTOCOLS.map((x) => `'${x}'`).join(", ")})
          AND (expires_at IS NULL OR expires_at <= ?) AND updated_at <= ? LIMIT ?`,
    );
    const unchangedSince = new Date(Date.parse(nowIso) - STUCK_FAILED_MS).toISOString();
    for (const c of companies)
      for (const env of ["test", "live"] as const) {
        if (out.length >= limit) return out;
        out.push(...(untaken.all(c.id, env, nowIso, limit - out.length) as Due[]));
        if (out.length >= limit) return out;
        out.push(...(stuck.all(c.id, env, nowIso, unchangedSince, limit - out.length) as Due[]));
      }
    return out;
  }

  /**
   * Through which provider the environment last reached the VASP `vaspId` (as that provider names it): the newest
   * outgoing transfer a provider took for it, other than `exceptId`; null when none did. Gated by the VASP directory
   * (a VASP no transfer named is answered without reading transfers) and walked newest first from the directory's
   * last sighting, so the walk stops at the first match.
   */
  lastReached(companyId: string, env: Environment, vaspId: string, exceptId: string): Promise<{ protocol: string; at: string } | null> {
    return this.s.run(() => this.lastReachedNow(companyId, env, vaspId, exceptId));
  }

  private lastReachedNow(companyId: string, env: Environment, vaspId: string, exceptId: string): { protocol: string; at: string } | null {
    const seen = this.s
      .stmt("SELECT max(last_seen_at) AS at FROM vasp_names WHERE company_id = ? AND environment = ? AND vasp_id = ? AND source = 'transfer_history'")
      .get(companyId, env, vaspId) as { at: string | null } | undefined;
    if (!seen?.at) return null;
    const row = this.s
      .stmt(
        `SELECT protocol, updated_at AS at FROM transfers
          WHERE company_id = ? AND environment = ? AND created_at <= ? AND beneficiary_vasp_id = ? AND protocol IS NOT NULL
            AND direction = 'outgoing' AND id <> ?
          ORDER BY created_at DESC, id DESC LIMIT 1`,
      )
      .get(companyId, env, seen.at, vaspId, exceptId) as { protocol: string; at: string } | undefined;
    return row ?? null;
  }

  /** Transfers queued and not yet in the search index. */
  pendingIndex(): Promise<number> {
    return this.s.run(() => unindexed(this.search));
  }

  page(companyId: string, env: Environment, f: TransferFilter, after: [string, string] | null, limit: number): Promise<Transfer[]> {
    return this.s.run(() => {
      const w = this.where(companyId, env, f);
      return newestFirst<TransferRow>(w.on, "*", "transfers", w, after, limit).map(toTransfer);
    });
  }

  count(companyId: string, env: Environment, f: TransferFilter): Promise<number> {
    return this.s.run(() => {
      if (Object.values(f).every((v) => v === undefined)) return listCount(this.s, companyId, env, "transfers");
      const w = this.where(companyId, env, f);
      return (w.on.stmt(`SELECT count(*) AS n FROM transfers WHERE ${w.sql}`).get(...w.args) as { n: number }).n;
    });
  }
}
