// Customers on PostgreSQL: the twin of ../../repos/customers.ts (same port, same answers). The external-ID search is
// SQLite's: three characters or more match the case-folded external ID, as SQLite's FTS5 trigram table does, here
// through a pg_trgm index on external_id_fold (caravan_fold(external_id), kept by PostgreSQL: db/migrations-pg/0004);
// shorter texts look inside the stored lower-cased external_id_search, as SQLite does. Names are searched through the
// blind index (./grams.ts).
import type { Environment } from "../../../../domain/types.ts";
import { columnsOf, matchText, toCustomer, toSealedName, type CustomerListRow, type CustomerRow } from "../../repos/customers.ts";
import {
  VersionConflict,
  type Customer,
  type CustomerChange,
  type CustomerListFilter,
  type CustomerListItem,
  type CustomerRepository,
  type HoldState,
  type NewCustomer,
  type SealedName,
} from "../../../../ports/customers.ts";
import type { PgParam, PgSession } from "../session.ts";
import { PgGramIndex } from "./grams.ts";
import { newestFirst, param, type PgWhere } from "./keyset.ts";

/** A LIKE pattern for text containing `needle` (its `\`, `%` and `_` taken literally). */
export function containsPattern(needle: string): string {
  return `%${needle.replace(/[\\%_]/g, "\\$&")}%`;
}

/** Totals of unfiltered lists, kept by triggers (db/migrations-pg/0001). */
export async function listCount(db: PgSession, companyId: string, env: Environment, list: string): Promise<number> {
  const r = await db.read<{ n: number }>("SELECT n FROM list_counts WHERE company_id = $1 AND environment = $2 AND list = $3", [companyId, env, list]);
  return r[0]?.n ?? 0;
}

type SealedNameRow = { id: string; name_sealed: string | null };

export class PgCustomers implements CustomerRepository {
  private readonly names: PgGramIndex;
  constructor(private readonly db: PgSession) {
    this.names = new PgGramIndex(db, "customer_name_grams", "customer_id");
  }

  async holdState(companyId: string, id: string): Promise<HoldState | undefined> {
    const [r] = await this.db.read<{ id: string; environment: Environment; legal_hold: number; status: Customer["status"] }>(
      "SELECT id, environment, legal_hold, status FROM customers WHERE id = $1 AND company_id = $2",
      [id, companyId],
    );
    return r ? { id: r.id, environment: r.environment, legalHold: r.legal_hold === 1, status: r.status } : undefined;
  }

  async setLegalHold(id: string, hold: boolean, updatedAt: string): Promise<void> {
    await this.db.q("UPDATE customers SET legal_hold = $1, version = version + 1, updated_at = $2 WHERE id = $3", [hold ? 1 : 0, updatedAt, id]);
  }

  async get(companyId: string, env: Environment, id: string): Promise<Customer | undefined> {
    const [r] = await this.db.read<CustomerRow>("SELECT * FROM customers WHERE id = $1 AND company_id = $2 AND environment = $3", [id, companyId, env]);
    return r ? toCustomer(r) : undefined;
  }

  async byExternalId(companyId: string, env: Environment, externalId: string): Promise<Customer | undefined> {
    const [r] = await this.db.read<CustomerRow>("SELECT * FROM customers WHERE company_id = $1 AND environment = $2 AND external_id = $3", [companyId, env, externalId]);
    return r ? toCustomer(r) : undefined;
  }

  async insert(c: NewCustomer): Promise<void> {
    const { cols, values } = columnsOf(c);
    await this.db.q(`INSERT INTO customers (${cols.join(", ")}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(", ")})`, values);
  }

  /** Updates the given fields if the row is still at `version`; bumps the version. */
  async update(id: string, version: number, set: CustomerChange): Promise<void> {
    const { cols, values } = columnsOf(set);
    const args: PgParam[] = [...values];
    const assignments = cols.map((c, i) => `${c} = $${i + 1}`).join(", ");
    const changed = await this.db.run(`UPDATE customers SET ${assignments}, version = version + 1 WHERE id = ${param(args, id)} AND version = ${param(args, version)}`, args);
    if (changed !== 1) throw new VersionConflict(`customer ${id} changed concurrently`);
  }

  replaceNameGrams(companyId: string, env: Environment, ownerId: string, grams: string[]): Promise<void> {
    return this.names.replace(companyId, env, ownerId, grams);
  }

  /** Customers that have every gram (candidates; the caller verifies against the sealed name), rarest grams first. */
  withAllGrams(companyId: string, env: Environment, grams: string[], cap: number): Promise<string[]> {
    return this.names.withAll(companyId, env, grams, cap);
  }

  /** In the order SQLite reads them (its index on company, environment, status, creation). */
  async allSealedNames(companyId: string, env: Environment): Promise<SealedName[]> {
    const rows = await this.db.read<SealedNameRow>("SELECT id, name_sealed FROM customers WHERE company_id = $1 AND environment = $2 AND name_sealed IS NOT NULL ORDER BY status, created_at, id", [companyId, env]);
    return rows.map(toSealedName);
  }

  /** In ID order, as SQLite answers (it looks the IDs up from a sorted list). */
  async sealedNames(ids: string[]): Promise<SealedName[]> {
    if (ids.length === 0) return [];
    return (await this.db.read<SealedNameRow>("SELECT id, name_sealed FROM customers WHERE id = ANY($1::text[]) ORDER BY id", [ids])).map(toSealedName);
  }

  private where(companyId: string, env: Environment, f: CustomerListFilter): PgWhere {
    const args: PgParam[] = [companyId, env];
    const parts = ["c.company_id = $1", "c.environment = $2"];
    if (!f.includeDeactivated) parts.push("c.status = 'active'");
    if (f.externalIdContains !== undefined) {
      const text = f.externalIdContains;
      const found =
        matchText(text) === null
          ? `strpos(c.external_id_search, ${param(args, text)}) > 0`
          : `c.external_id_fold LIKE caravan_fold(${param(args, containsPattern(text))})`;
      parts.push(`(${found} OR c.id = ANY(${param(args, f.nameMatchIds ?? [])}::text[]))`);
    }
    return { sql: parts.join(" AND "), args };
  }

  /** Newest first; keyset on (created_at, id). */
  async page(companyId: string, env: Environment, f: CustomerListFilter, after: [string, string] | null, limit: number): Promise<CustomerListItem[]> {
    const select = "c.*, (SELECT count(*) FROM wallets w WHERE w.company_id = c.company_id AND w.environment = c.environment AND w.customer_id = c.id) AS wallet_count";
    const rows = await newestFirst<CustomerListRow>(this.db, select, "customers c", this.where(companyId, env, f), after, limit, "c.");
    return rows.map((r) => ({ ...toCustomer(r), walletCount: r.wallet_count }));
  }

  async count(companyId: string, env: Environment, f: CustomerListFilter): Promise<number> {
    if (f.externalIdContains === undefined) return listCount(this.db, companyId, env, f.includeDeactivated ? "customers" : "customers:active");
    const w = this.where(companyId, env, f);
    return (await this.db.read<{ n: number }>(`SELECT count(*) AS n FROM customers c WHERE ${w.sql}`, w.args))[0]!.n;
  }

  async walletCount(companyId: string, env: Environment, customerId: string): Promise<number> {
    return (await this.db.read<{ n: number }>("SELECT count(*) AS n FROM wallets WHERE company_id = $1 AND environment = $2 AND customer_id = $3", [companyId, env, customerId]))[0]!.n;
  }
}
