// Wallet rows: reads for the API, writes from the customer actor's commit.
import type { Environment } from "../../../domain/types.ts";
import type { Storage, SqlValue } from "../types.ts";
import { listCount, matchText } from "./customers.ts";
import { newestFirst } from "./keyset.ts";
import type { RowOf } from "./row.ts";
import type { wallets as walletsTable } from "../../../../db/schema/wallets.ts";

export type WalletRow = RowOf<typeof walletsTable>;

export interface WalletFilter {
  network?: string;
  verified?: boolean;
  customerId?: string;
  search?: string;
}

export class Wallets {
  constructor(private readonly s: Storage) {}

  get(companyId: string, env: Environment, id: string): WalletRow | undefined {
    return (this.s.stmt("SELECT * FROM wallets WHERE id = ? AND company_id = ? AND environment = ?").get(id, companyId, env) ?? undefined) as WalletRow | undefined;
  }

  byAddress(companyId: string, env: Environment, address: string): WalletRow | undefined {
    return (this.s.stmt("SELECT * FROM wallets WHERE company_id = ? AND environment = ? AND address = ?").get(companyId, env, address) ?? undefined) as
      | WalletRow
      | undefined;
  }

  byAddresses(companyId: string, env: Environment, addresses: string[]): WalletRow[] {
    return this.s
      .stmt("SELECT * FROM wallets WHERE company_id = ? AND environment = ? AND address IN (SELECT value FROM json_each(?))")
      .all(companyId, env, JSON.stringify(addresses)) as unknown as WalletRow[];
  }

  insert(row: WalletRow): void {
    const cols = Object.keys(row);
    this.s.stmt(`INSERT INTO wallets (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(...(Object.values(row) as SqlValue[]));
  }

  update(id: string, set: Partial<WalletRow>): void {
    const cols = Object.keys(set);
    this.s.stmt(`UPDATE wallets SET ${cols.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`).run(...(Object.values(set) as SqlValue[]), id);
  }

  delete(id: string): void {
    this.s.stmt("DELETE FROM wallets WHERE id = ?").run(id);
  }

  private where(companyId: string, env: Environment, f: WalletFilter): { sql: string; args: SqlValue[] } {
    const parts = ["company_id = ?", "environment = ?"];
    const args: SqlValue[] = [companyId, env];
    if (f.network !== undefined) (parts.push("network = ?"), args.push(f.network));
    if (f.verified !== undefined) (parts.push("verified = ?"), args.push(f.verified ? 1 : 0));
    if (f.customerId !== undefined) (parts.push("customer_id = ?"), args.push(f.customerId));
    if (f.search !== undefined) {
      const text = matchText(f.search);
      if (text !== null) {
        parts.push("rowid IN (SELECT rowid FROM wallets_search WHERE wallets_search MATCH ?)");
        args.push(text);
      } else {
        parts.push("(instr(lower(address), ?) > 0 OR instr(lower(coalesce(label, '')), ?) > 0 OR instr(customer_id, ?) > 0)");
        const s = f.search.toLowerCase();
        args.push(s, s, f.search);
      }
    }
    return { sql: parts.join(" AND "), args };
  }

  /** Newest first; keyset on (created_at, id). */
  page(companyId: string, env: Environment, f: WalletFilter, after: [string, string] | null, limit: number): WalletRow[] {
    return newestFirst<WalletRow>(this.s, "*", "wallets", this.where(companyId, env, f), after, limit);
  }

  count(companyId: string, env: Environment, f: WalletFilter): number {
    if (Object.values(f).every((v) => v === undefined)) return listCount(this.s, companyId, env, "wallets");
    const w = this.where(companyId, env, f);
    return (this.s.stmt(`SELECT count(*) AS n FROM wallets WHERE ${w.sql}`).get(...w.args) as { n: number }).n;
  }
}
