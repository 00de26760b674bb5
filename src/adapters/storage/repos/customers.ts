// Customer rows: reads for the API and the customer actor's writes (called inside its commit).
import { GramIndex } from "./grams.ts";
import type { Environment } from "../../../domain/types.ts";
import type { Storage, SqlValue } from "../types.ts";
import { newestFirst } from "./keyset.ts";
import type { RowOf } from "./row.ts";
import type { customers as customersTable } from "../../../../db/schema/customers.ts";

export type CustomerRow = RowOf<typeof customersTable>;

export interface CustomerListRow extends CustomerRow {
  wallet_count: number;
}

export interface CustomerListFilter {
  includeDeactivated: boolean;
  /** Lower-cased search text matched inside externalId. */
  externalIdContains?: string;
  /** Customers whose name matched (already verified against the sealed name). */
  nameMatchIds?: string[];
}

/**
 * An FTS5 trigram phrase for a substring search, or null under three characters (trigrams need three;
 * shorter texts fall back to a scan).
 */
export function matchText(needle: string): string | null {
  if (Array.from(needle).length < 3) return null;
  return `"${needle.replace(/"/g, '""')}"`;
}

/** Totals of unfiltered lists, kept by triggers (migration 0004). */
export function listCount(s: Storage, companyId: string, env: Environment, list: string): number {
  const r = s.stmt("SELECT n FROM list_counts WHERE company_id = ? AND environment = ? AND list = ?").get(companyId, env, list) as { n: number } | undefined;
  return r?.n ?? 0;
}

/** The optimistic check failed: another writer (the CLI) changed the row between read and commit. */
export class VersionConflict extends Error {
  override name = "VersionConflict";
}

export class Customers {
  constructor(private readonly s: Storage) {}

  /** A customer of the company in either environment, for the legal-hold command (which names it by ID alone). */
  holdState(companyId: string, id: string): { id: string; environment: Environment; legal_hold: number; status: string } | undefined {
    return (this.s.stmt("SELECT id, environment, legal_hold, status FROM customers WHERE id = ? AND company_id = ?").get(id, companyId) ?? undefined) as
      | { id: string; environment: Environment; legal_hold: number; status: string }
      | undefined;
  }

  /** Sets or releases the legal hold; the version bump makes a concurrent change by the customer actor retry on fresh data. */
  setLegalHold(id: string, hold: boolean, updatedAt: string): void {
    this.s.stmt("UPDATE customers SET legal_hold = ?, version = version + 1, updated_at = ? WHERE id = ?").run(hold ? 1 : 0, updatedAt, id);
  }

  get(companyId: string, env: Environment, id: string): CustomerRow | undefined {
    return (this.s.stmt("SELECT * FROM customers WHERE id = ? AND company_id = ? AND environment = ?").get(id, companyId, env) ?? undefined) as
      | CustomerRow
      | undefined;
  }

  byExternalId(companyId: string, env: Environment, externalId: string): CustomerRow | undefined {
    return (this.s.stmt("SELECT * FROM customers WHERE company_id = ? AND environment = ? AND external_id = ?").get(companyId, env, externalId) ??
      undefined) as CustomerRow | undefined;
  }

  insert(row: Omit<CustomerRow, "version" | "legal_hold">): void {
    const cols = Object.keys(row);
    this.s
      .stmt(`INSERT INTO customers (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`)
      .run(...(Object.values(row) as SqlValue[]));
  }

  /** Updates the given columns if the row is still at `version`; bumps the version. */
  update(id: string, version: number, set: Partial<CustomerRow>): void {
    const cols = Object.keys(set);
    const r = this.s
      .stmt(`UPDATE customers SET ${cols.map((c) => `${c} = ?`).join(", ")}, version = version + 1 WHERE id = ? AND version = ?`)
      .run(...(Object.values(set) as SqlValue[]), id, version);
    if (r.changes !== 1) throw new VersionConflict(`customer ${id} changed concurrently`);
  }

  replaceNameGrams(companyId: string, env: Environment, ownerId: string, grams: string[]): void {
    new GramIndex(this.s, "customer_name_grams", "customer_id").replace(companyId, env, ownerId, grams);
  }


  /**
   * Customers that have every gram (candidates; the caller verifies against the sealed name). The rarest
   * grams are intersected first: a common trigram ("ann") can sit in a tenth of all names.
   */
  withAllGrams(companyId: string, env: Environment, grams: string[], cap: number): string[] {
    return new GramIndex(this.s, "customer_name_grams", "customer_id").withAll(companyId, env, grams, cap);
  }


  /** Every sealed name of the environment: the fallback of name searches too short for trigrams. */
  allSealedNames(companyId: string, env: Environment): { id: string; name_sealed: string | null }[] {
    return this.s.stmt("SELECT id, name_sealed FROM customers WHERE company_id = ? AND environment = ? AND name_sealed IS NOT NULL").all(companyId, env) as {
      id: string;
      name_sealed: string | null;
    }[];
  }

  sealedNames(ids: string[]): { id: string; name_sealed: string | null }[] {
    if (ids.length === 0) return [];
    return this.s.stmt("SELECT id, name_sealed FROM customers WHERE id IN (SELECT value FROM json_each(?))").all(JSON.stringify(ids)) as {
      id: string;
      name_sealed: string | null;
    }[];
  }

  private where(companyId: string, env: Environment, f: CustomerListFilter): { sql: string; args: SqlValue[] } {
    const parts = ["c.company_id = ?", "c.environment = ?"];
    const args: SqlValue[] = [companyId, env];
    if (!f.includeDeactivated) parts.push("c.status = 'active'");
    if (f.externalIdContains !== undefined) {
      const text = matchText(f.externalIdContains);
      parts.push(
        text === null
          ? "(instr(c.external_id_search, ?) > 0 OR c.id IN (SELECT value FROM json_each(?)))"
          : "(c.rowid IN (SELECT rowid FROM customers_search WHERE customers_search MATCH ?) OR c.id IN (SELECT value FROM json_each(?)))",
      );
      args.push(text ?? f.externalIdContains, JSON.stringify(f.nameMatchIds ?? []));
    }
    return { sql: parts.join(" AND "), args };
  }

  /** Newest first; keyset on (created_at, id). */
  page(companyId: string, env: Environment, f: CustomerListFilter, after: [string, string] | null, limit: number): CustomerListRow[] {
    const select =
      "c.*, (SELECT count(*) FROM wallets w WHERE w.company_id = c.company_id AND w.environment = c.environment AND w.customer_id = c.id) AS wallet_count";
    return newestFirst<CustomerListRow>(this.s, select, "customers c", this.where(companyId, env, f), after, limit, "c.");
  }

  count(companyId: string, env: Environment, f: CustomerListFilter): number {
    if (f.externalIdContains === undefined) return listCount(this.s, companyId, env, f.includeDeactivated ? "customers" : "customers:active");
    const w = this.where(companyId, env, f);
    return (this.s.stmt(`SELECT count(*) AS n FROM customers c WHERE ${w.sql}`).get(...w.args) as { n: number }).n;
  }

  walletCount(companyId: string, env: Environment, customerId: string): number {
    return (this.s.stmt("SELECT count(*) AS n FROM wallets WHERE company_id = ? AND environment = ? AND customer_id = ?").get(companyId, env, customerId) as { n: number }).n;
  }
}
