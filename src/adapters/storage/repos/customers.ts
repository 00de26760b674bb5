// Customers in SQLite (src/ports/customers.ts): reads for the API and the customer actor's writes (called inside its commit).
import { GramIndex } from "./grams.ts";
import type { Environment } from "../../../domain/types.ts";
import type { Storage, SqlValue } from "../types.ts";
import { newestFirst } from "./keyset.ts";
import type { RowOf } from "./row.ts";
import type { customers as customersTable } from "../../../../db/schema/customers.ts";
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
} from "../../../ports/customers.ts";

export { VersionConflict };

export type CustomerRow = RowOf<typeof customersTable>;

export type CustomerListRow = CustomerRow & { wallet_count: number };

/** The column of a record field (`nameSealed` → `name_sealed`). */
export const column = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A record's fields as column values (booleans as 0/1), for an INSERT or UPDATE. */
export function columnsOf(rec: object): { cols: string[]; values: SqlValue[] } {
  const entries = Object.entries(rec).filter(([, v]) => v !== undefined);
  return { cols: entries.map(([k]) => column(k)), values: entries.map(([, v]) => (typeof v === "boolean" ? (v ? 1 : 0) : (v as SqlValue))) };
}

export const toCustomer = (r: CustomerRow): Customer => ({
  id: r.id,
  companyId: r.company_id,
  environment: r.environment,
  externalId: r.external_id,
  externalIdSearch: r.external_id_search,
  nameSealed: r.name_sealed,
  metadataSealed: r.metadata_sealed,
  identitySealed: r.identity_sealed,
  identityStatus: r.identity_status,
  identityCountry: r.identity_country,
  publicKey: r.public_key,
  privateKeySealed: r.private_key_sealed,
  status: r.status,
  deactivatedAt: r.deactivated_at,
  deactivatedBy: r.deactivated_by,
  deactivationReasonSealed: r.deactivation_reason_sealed,
  erasedAt: r.erased_at,
  erasedBy: r.erased_by,
  erasureReasonSealed: r.erasure_reason_sealed,
  legalHold: r.legal_hold === 1,
  version: r.version,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toSealedName = (r: { id: string; name_sealed: string | null }): SealedName => ({ id: r.id, nameSealed: r.name_sealed });

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

export class Customers implements CustomerRepository {
  constructor(private readonly s: Storage) {}

  holdState(companyId: string, id: string): Promise<HoldState | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT id, environment, legal_hold, status FROM customers WHERE id = ? AND company_id = ?").get(id, companyId) as
        | { id: string; environment: Environment; legal_hold: number; status: Customer["status"] }
        | null
        | undefined;
      return r ? { id: r.id, environment: r.environment, legalHold: r.legal_hold === 1, status: r.status } : undefined;
    });
  }

  setLegalHold(id: string, hold: boolean, updatedAt: string): Promise<void> {
    return this.s.run(() => {
      this.s.stmt("UPDATE customers SET legal_hold = ?, version = version + 1, updated_at = ? WHERE id = ?").run(hold ? 1 : 0, updatedAt, id);
    });
  }

  get(companyId: string, env: Environment, id: string): Promise<Customer | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT * FROM customers WHERE id = ? AND company_id = ? AND environment = ?").get(id, companyId, env) as CustomerRow | null | undefined;
      return r ? toCustomer(r) : undefined;
    });
  }

  byExternalId(companyId: string, env: Environment, externalId: string): Promise<Customer | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT * FROM customers WHERE company_id = ? AND environment = ? AND external_id = ?").get(companyId, env, externalId) as
        | CustomerRow
        | null
        | undefined;
      return r ? toCustomer(r) : undefined;
    });
  }

  insert(c: NewCustomer): Promise<void> {
    return this.s.run(() => {
      const { cols, values } = columnsOf(c);
      this.s.stmt(`INSERT INTO customers (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(...values);
    });
  }

  /** Updates the given fields if the row is still at `version`; bumps the version. */
  update(id: string, version: number, set: CustomerChange): Promise<void> {
    return this.s.run(() => {
      const { cols, values } = columnsOf(set);
      const r = this.s.stmt(`UPDATE customers SET ${cols.map((c) => `${c} = ?`).join(", ")}, version = version + 1 WHERE id = ? AND version = ?`).run(...values, id, version);
      if (r.changes !== 1) throw new VersionConflict(`customer ${id} changed concurrently`);
    });
  }

  replaceNameGrams(companyId: string, env: Environment, ownerId: string, grams: string[]): Promise<void> {
    return this.s.run(() => new GramIndex(this.s, "customer_name_grams", "customer_id").replace(companyId, env, ownerId, grams));
  }

  /**
   * Customers that have every gram (candidates; the caller verifies against the sealed name). The rarest
   * grams are intersected first: a common trigram ("ann") can sit in a tenth of all names.
   */
  withAllGrams(companyId: string, env: Environment, grams: string[], cap: number): Promise<string[]> {
    return this.s.run(() => new GramIndex(this.s, "customer_name_grams", "customer_id").withAll(companyId, env, grams, cap));
  }

  allSealedNames(companyId: string, env: Environment): Promise<SealedName[]> {
    return this.s.run(() =>
      (this.s.stmt("SELECT id, name_sealed FROM customers WHERE company_id = ? AND environment = ? AND name_sealed IS NOT NULL").all(companyId, env) as { id: string; name_sealed: string | null }[]).map(toSealedName),
    );
  }

  sealedNames(ids: string[]): Promise<SealedName[]> {
    return this.s.run(() => {
      if (ids.length === 0) return [];
      return (this.s.stmt("SELECT id, name_sealed FROM customers WHERE id IN (SELECT value FROM json_each(?))").all(JSON.stringify(ids)) as { id: string; name_sealed: string | null }[]).map(toSealedName);
    });
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
  page(companyId: string, env: Environment, f: CustomerListFilter, after: [string, string] | null, limit: number): Promise<CustomerListItem[]> {
    return this.s.run(() => {
      const select =
        "c.*, (SELECT count(*) FROM wallets w WHERE w.company_id = c.company_id AND w.environment = c.environment AND w.customer_id = c.id) AS wallet_count";
      return newestFirst<CustomerListRow>(this.s, select, "customers c", this.where(companyId, env, f), after, limit, "c.").map((r) => ({ ...toCustomer(r), walletCount: r.wallet_count }));
    });
  }

  count(companyId: string, env: Environment, f: CustomerListFilter): Promise<number> {
    return this.s.run(() => {
      if (f.externalIdContains === undefined) return listCount(this.s, companyId, env, f.includeDeactivated ? "customers" : "customers:active");
      const w = this.where(companyId, env, f);
      return (this.s.stmt(`SELECT count(*) AS n FROM customers c WHERE ${w.sql}`).get(...w.args) as { n: number }).n;
    });
  }

  walletCount(companyId: string, env: Environment, customerId: string): Promise<number> {
    return this.s.run(() => (this.s.stmt("SELECT count(*) AS n FROM wallets WHERE company_id = ? AND environment = ? AND customer_id = ?").get(companyId, env, customerId) as { n: number }).n);
  }
}
