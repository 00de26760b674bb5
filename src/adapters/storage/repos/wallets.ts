// Wallets in SQLite (src/ports/wallets.ts): reads for the API, writes from the customer actor's commit.
import type { Environment } from "../../../domain/types.ts";
import type { Storage, SqlValue } from "../types.ts";
import { columnsOf, listCount, matchText } from "./customers.ts";
import { newestFirst } from "./keyset.ts";
import type { RowOf } from "./row.ts";
import type { wallets as walletsTable } from "../../../../db/schema/wallets.ts";
import type { Wallet, WalletChange, WalletFilter, WalletRepository } from "../../../ports/wallets.ts";

/** A wallets row (inside storage only: the proofs repository reads wallets too). */
export type WalletRow = RowOf<typeof walletsTable>;

export const toWallet = (r: WalletRow): Wallet => ({
  id: r.id,
  companyId: r.company_id,
  environment: r.environment,
  customerId: r.customer_id,
  address: r.address,
  network: r.network,
  label: r.label,
  verified: r.verified === 1,
  verifiedAt: r.verified_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export class Wallets implements WalletRepository {
  constructor(private readonly s: Storage) {}

  get(companyId: string, env: Environment, id: string): Promise<Wallet | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT * FROM wallets WHERE id = ? AND company_id = ? AND environment = ?").get(id, companyId, env) as WalletRow | null | undefined;
      return r ? toWallet(r) : undefined;
    });
  }

  byAddress(companyId: string, env: Environment, address: string): Promise<Wallet | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT * FROM wallets WHERE company_id = ? AND environment = ? AND address = ?").get(companyId, env, address) as WalletRow | null | undefined;
      return r ? toWallet(r) : undefined;
    });
  }

  byAddresses(companyId: string, env: Environment, addresses: string[]): Promise<Wallet[]> {
    return this.s.run(() =>
      (
        this.s
          .stmt("SELECT * FROM wallets WHERE company_id = ? AND environment = ? AND address IN (SELECT value FROM json_each(?))")
          .all(companyId, env, JSON.stringify(addresses)) as unknown as WalletRow[]
      ).map(toWallet),
    );
  }

  insert(w: Wallet): Promise<void> {
    return this.s.run(() => {
      const { cols, values } = columnsOf(w);
      this.s.stmt(`INSERT INTO wallets (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(...values);
    });
  }

  update(id: string, set: WalletChange): Promise<void> {
    return this.s.run(() => {
      const { cols, values } = columnsOf(set);
      if (cols.length === 0) return;
      this.s.stmt(`UPDATE wallets SET ${cols.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`).run(...values, id);
    });
  }

  delete(id: string): Promise<void> {
    return this.s.run(() => {
      this.s.stmt("DELETE FROM wallets WHERE id = ?").run(id);
    });
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
  page(companyId: string, env: Environment, f: WalletFilter, after: [string, string] | null, limit: number): Promise<Wallet[]> {
    return this.s.run(() => newestFirst<WalletRow>(this.s, "*", "wallets", this.where(companyId, env, f), after, limit).map(toWallet));
  }

  count(companyId: string, env: Environment, f: WalletFilter): Promise<number> {
    return this.s.run(() => {
      if (Object.values(f).every((v) => v === undefined)) return listCount(this.s, companyId, env, "wallets");
      const w = this.where(companyId, env, f);
      return (this.s.stmt(`SELECT count(*) AS n FROM wallets WHERE ${w.sql}`).get(...w.args) as { n: number }).n;
    });
  }
}
