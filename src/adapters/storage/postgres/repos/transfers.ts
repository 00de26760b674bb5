// Transfers on PostgreSQL: the twin of ../../repos/transfers.ts (same port, same answers). The records, the column
// list and the encoding of a record's fields are that file's (toTransfer, insertValues, updateColumns). Search runs on
// the rows themselves through a pg_trgm GIN index over the searched columns (db/migrations-pg/0003_transfer_search.sql),
// kept by PostgreSQL in the transaction that writes the row: no queue, no second file, nothing pending.
import type { Environment } from "../../../../domain/types.ts";
import { STUCK_FAILED_MS, STUCK_FAILED_PROTOCOLS, UNTAKEN_STATES } from "../../../../domain/transfers.ts";
import type { DueTransfer, Transfer, TransferFilter, TransferRepository } from "../../../../ports/transfers.ts";
import { ACTIVE, INSERT_COLUMNS, insertValues, toTransfer, updateColumns, type TransferRow } from "../../repos/transfers.ts";
import { SEARCHED } from "../../search-index.ts";
import type { PgParam, PgSession } from "../session.ts";

const INSERT = `INSERT INTO transfers (${INSERT_COLUMNS.join(", ")}) VALUES (${INSERT_COLUMNS.map((_, i) => `$${i + 1}`).join(", ")})`;

/** The filters that compare a column for equality, by field and column. */
const EQUAL_FILTERS = [
  ["direction", "direction"],
  ["state", "state"],
  ["status", "status"],
  ["protocol", "protocol"],
] as const satisfies readonly (readonly [keyof TransferFilter, string])[];

/**
 * The searched columns as one text, the expression the GIN index `transfers_search` is built over
 * (db/migrations-pg/0003_transfer_search.sql), to the letter: the planner uses the index only for the same expression.
 */
export const SEARCH_TEXT = `(${SEARCHED.map((c) => `coalesce(${c}, '')`).join(" || E'\\n' || ")})`;

/** `text` as a LIKE pattern that matches it literally anywhere (`\` is LIKE's escape character by default). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A customer's transfers not yet final (either side), oldest first; each branch matches its partial index's WHERE. */
const ACTIVE_FOR_CUSTOMER = `SELECT id, created_at FROM transfers WHERE originator_customer_id = $3 AND ${ACTIVE} AND company_id = $1 AND environment = $2
  UNION SELECT id, created_at FROM transfers WHERE beneficiary_customer_id = $3 AND ${ACTIVE} AND company_id = $1 AND environment = $2
  ORDER BY created_at, id`;

const quoted = (xs: readonly string[]) => xs.map((x) => `'${x}'`).join(", ");

/**
 * Transfers due to be cancelled ($1 now, $2 unchanged since, $3 limit): per company (by ID) and environment (test,
 * then live), the outgoing ones no provider took past their expiry, then the failed ones no action moves on, each
 * branch read through `transfers_state` (company, environment, state) and cut at the limit.
 */
const DUE_FOR_CANCEL = `SELECT d.id, d.company_id, d.environment FROM companies c
  CROSS JOIN (VALUES (1, 'test'), (2, 'live')) AS e(n, env)
  CROSS JOIN LATERAL (
    (SELECT id, company_id, environment, 1 AS branch FROM transfers
      WHERE company_id = c.id AND environment = e.env AND state IN (${quoted(UNTAKEN_STATES)})
        AND direction = 'outgoing' AND protocol IS NULL AND expires_at <= $1 LIMIT $3)
    UNION ALL
    (SELECT id, company_id, environment, 2 AS branch FROM transfers
      WHERE company_id = c.id AND environment = e.env AND state = 'failed' AND protocol IN (${quoted(STUCK_FAILED_PROTOCOLS)})
        AND (expires_at IS NULL OR expires_at <= $1) AND updated_at <= $2 LIMIT $3)
  ) AS d
  ORDER BY c.id, e.n, d.branch LIMIT $3`;

export class PgTransfers implements TransferRepository {
  /** The GIN index is kept with the rows: nothing is queued. */
  readonly searchQueued = false;

  constructor(private readonly db: PgSession) {}

  private async first(sql: string, params: readonly PgParam[]): Promise<Transfer | undefined> {
    const [r] = await this.db.read<TransferRow>(sql, params);
    return r ? toTransfer(r) : undefined;
  }

  get(companyId: string, env: Environment, id: string): Promise<Transfer | undefined> {
    return this.first("SELECT * FROM transfers WHERE id = $1 AND company_id = $2 AND environment = $3", [id, companyId, env]);
  }

  byProviderReference(companyId: string, env: Environment, protocol: string, providerExternalId: string): Promise<Transfer | undefined> {
    return this.first("SELECT * FROM transfers WHERE company_id = $1 AND environment = $2 AND provider_external_id = $3 AND protocol = $4", [companyId, env, providerExternalId, protocol]);
  }

  outgoingProviderB(companyId: string, env: Environment, providerExternalId: string, beneficiaryVaspId: string): Promise<Transfer | undefined> {
    return this.first(
      "SELECT * FROM transfers WHERE company_id = $1 AND environment = $2 AND provider_external_id = $3 AND direction = 'outgoing' AND protocol = 'provider_b' AND beneficiary_vasp_id = $4",
      [companyId, env, providerExternalId, beneficiaryVaspId],
    );
  }

  async outgoingProviderBByTx(companyId: string, env: Environment, txHashes: readonly string[], beneficiaryVaspId: string): Promise<Transfer[]> {
    const rows = await this.db.read<TransferRow>(
      `SELECT * FROM transfers WHERE company_id = $1 AND environment = $2 AND tx_hash = ANY($3::text[])
         AND direction = 'outgoing' AND protocol = 'provider_b' AND beneficiary_vasp_id = $4 ORDER BY created_at, id`,
      [companyId, env, txHashes, beneficiaryVaspId],
    );
    return rows.map(toTransfer);
  }

  byExternalId(companyId: string, env: Environment, externalId: string): Promise<Transfer | undefined> {
    return this.first("SELECT * FROM transfers WHERE company_id = $1 AND environment = $2 AND external_id = $3", [companyId, env, externalId]);
  }

  async insert(t: Transfer): Promise<void> {
    await this.db.q(INSERT, insertValues(t));
  }

  async update(id: string, set: Partial<Transfer>): Promise<void> {
    const { columns, values } = updateColumns(set);
    if (!columns.length) return;
    await this.db.q(`UPDATE transfers SET ${columns.map((c, i) => `${c} = $${i + 1}`).join(", ")} WHERE id = $${columns.length + 1}`, [...values, id]);
  }

  /** Transfers of the customer (either side) not in a final state: erasure waits for them (Part 1, IN_FLIGHT). */
  async activeForCustomer(companyId: string, env: Environment, customerId: string): Promise<string[]> {
    return (await this.db.read<{ id: string }>(ACTIVE_FOR_CUSTOMER, [companyId, env, customerId])).map((r) => r.id);
  }

  /** Nothing to index: PostgreSQL keeps the GIN index in the writing transaction. */
  async indexPending(_limit: number): Promise<number> {
    return 0;
  }

  async trimSearchQueue(): Promise<number> {
    return 0;
  }

  async pendingIndex(): Promise<number> {
    return 0;
  }

  async dueForCancel(nowIso: string, limit = 500): Promise<DueTransfer[]> {
    const unchangedSince = new Date(Date.parse(nowIso) - STUCK_FAILED_MS).toISOString();
    const rows = await this.db.read<{ id: string; company_id: string; environment: Environment }>(DUE_FOR_CANCEL, [nowIso, unchangedSince, limit]);
    return rows.map((r) => ({ id: r.id, companyId: r.company_id, environment: r.environment }));
  }

  /**
   * Through which provider the environment last reached the VASP `vaspId`: gated by the VASP directory's last
   * sighting, then the newest outgoing transfer a provider took for it up to that sighting, other than `exceptId`.
   */
  async lastReached(companyId: string, env: Environment, vaspId: string, exceptId: string): Promise<{ protocol: string; at: string } | null> {
    const [row] = await this.db.read<{ protocol: string; at: string }>(
      `WITH seen AS (SELECT max(last_seen_at) AS at FROM vasp_names WHERE company_id = $1 AND environment = $2 AND vasp_id = $3 AND source = 'transfer_history')
       SELECT t.protocol, t.updated_at AS at FROM seen, transfers t
        WHERE t.company_id = $1 AND t.environment = $2 AND t.created_at <= seen.at AND t.beneficiary_vasp_id = $3 AND t.protocol IS NOT NULL
          AND t.direction = 'outgoing' AND t.id <> $4
        ORDER BY t.created_at DESC, t.id DESC LIMIT 1`,
      [companyId, env, vaspId, exceptId],
    );
    return row ?? null;
  }

  /**
   * The filter's WHERE from parameter `$1` on. A search matches a transfer when one of the searched columns, its ASCII
   * letters folded to lower case (lower() under the C locale, as SQLite's lower()), holds the text lowered by
   * JavaScript: ILIKE with the text's LIKE characters escaped, which the pg_trgm index serves (a text shorter than a
   * trigram matches the same way; the planner then walks the list instead).
   */
  private where(companyId: string, env: Environment, f: TransferFilter): { sql: string; params: PgParam[] } {
    const params: PgParam[] = [companyId, env];
    const parts = ["company_id = $1", "environment = $2"];
    for (const [field, column] of EQUAL_FILTERS) {
      const v = f[field];
      if (v !== undefined) (params.push(v), parts.push(`${column} = $${params.length}`));
    }
    if (f.search !== undefined) {
      params.push(containsPattern(f.search.toLowerCase()));
      const p = `$${params.length}`;
      // The index narrows on the joined text; the text must then be in one column (not across a line feed).
      parts.push(`${SEARCH_TEXT} ILIKE ${p}`, `(${SEARCHED.map((c) => `${c} ILIKE ${p}`).join(" OR ")})`);
    }
    return { sql: parts.join(" AND "), params };
  }

  /** Newest first, after the keyset position: a row comparison, which the list indexes serve as a range. */
  async page(companyId: string, env: Environment, f: TransferFilter, after: [string, string] | null, limit: number): Promise<Transfer[]> {
    const w = this.where(companyId, env, f);
    const params = [...w.params];
    let sql = w.sql;
    if (after) {
      params.push(after[0], after[1]);
      sql += ` AND (created_at, id) < ($${params.length - 1}, $${params.length})`;
    }
    params.push(limit);
    const rows = await this.db.read<TransferRow>(`SELECT * FROM transfers WHERE ${sql} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`, params);
    return rows.map(toTransfer);
  }

  async count(companyId: string, env: Environment, f: TransferFilter): Promise<number> {
    if (Object.values(f).every((v) => v === undefined)) {
      const [r] = await this.db.read<{ n: number }>("SELECT n FROM list_counts WHERE company_id = $1 AND environment = $2 AND list = 'transfers'", [companyId, env]);
      return r?.n ?? 0;
    }
    const w = this.where(companyId, env, f);
    const [r] = await this.db.read<{ n: number }>(`SELECT count(*)::int AS n FROM transfers WHERE ${w.sql}`, w.params);
    return r!.n;
  }
}
