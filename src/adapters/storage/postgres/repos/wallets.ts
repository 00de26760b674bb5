// Wallets on PostgreSQL: the twin of ../../repos/wallets.ts (same port, same answers). The search is SQLite's: three
// characters or more match the case-folded address, label or customer ID, as SQLite's FTS5 trigram table does, here
// through a pg_trgm index on the columns address_fold, label_fold and customer_id_fold (caravan_fold of each, kept by
// PostgreSQL: db/migrations-pg/0004); shorter texts look inside the ASCII-lower-cased address and label and the
// customer ID as given, as SQLite's instr over lower() does.
import type { Environment } from "../../../../domain/types.ts";
import { columnsOf, matchText } from "../../repos/customers.ts";
import { toWallet, type WalletRow } from "../../repos/wallets.ts";
import type { Wallet, WalletChange, WalletFilter, WalletRepository } from "../../../../ports/wallets.ts";
import type { PgParam, PgSession } from "../session.ts";
import { containsPattern, listCount } from "./customers.ts";
import { newestFirst, param, type PgWhere } from "./keyset.ts";

export class PgWallets implements WalletRepository {
  constructor(private readonly db: PgSession) {}

  async get(companyId: string, env: Environment, id: string): Promise<Wallet | undefined> {
    const [r] = await this.db.read<WalletRow>("SELECT * FROM wallets WHERE id = $1 AND company_id = $2 AND environment = $3", [id, companyId, env]);
    return r ? toWallet(r) : undefined;
  }

  async byAddress(companyId: string, env: Environment, address: string): Promise<Wallet | undefined> {
    const [r] = await this.db.read<WalletRow>("SELECT * FROM wallets WHERE company_id = $1 AND environment = $2 AND address = $3", [companyId, env, address]);
    return r ? toWallet(r) : undefined;
  }

  /** In address order, as SQLite answers (it looks the addresses up from a sorted list). */
  async byAddresses(companyId: string, env: Environment, addresses: string[]): Promise<Wallet[]> {
    if (addresses.length === 0) return [];
    const rows = await this.db.read<WalletRow>(
      "SELECT * FROM wallets WHERE company_id = $1 AND environment = $2 AND address = ANY($3::text[]) ORDER BY address",
      [companyId, env, addresses],
    );
    return rows.map(toWallet);
  }

  async insert(w: Wallet): Promise<void> {
    const { cols, values } = columnsOf(w);
    await this.db.q(`INSERT INTO wallets (${cols.join(", ")}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(", ")})`, values);
  }

  async update(id: string, set: WalletChange): Promise<void> {
    const { cols, values } = columnsOf(set);
    if (cols.length === 0) return;
    await this.db.q(`UPDATE wallets SET ${cols.map((c, i) => `${c} = $${i + 1}`).join(", ")} WHERE id = $${cols.length + 1}`, [...values, id]);
  }

  /** Its challenges and proofs go with it (ON DELETE CASCADE, as on SQLite). */
  async delete(id: string): Promise<void> {
    await this.db.q("DELETE FROM wallets WHERE id = $1", [id]);
  }

  private where(companyId: string, env: Environment, f: WalletFilter): PgWhere {
    const args: PgParam[] = [companyId, env];
    const parts = ["company_id = $1", "environment = $2"];
    if (f.network !== undefined) parts.push(`network = ${param(args, f.network)}`);
    if (f.verified !== undefined) parts.push(`verified = ${param(args, f.verified ? 1 : 0)}`);
    if (f.customerId !== undefined) parts.push(`customer_id = ${param(args, f.customerId)}`);
    if (f.search !== undefined) {
      if (matchText(f.search) !== null) {
        const p = `caravan_fold(${param(args, containsPattern(f.search))})`;
        parts.push(`(address_fold LIKE ${p} OR label_fold LIKE ${p} OR customer_id_fold LIKE ${p})`);
      } else {
        const s = param(args, f.search.toLowerCase());
        parts.push(`(strpos(lower(address COLLATE "C"), ${s}) > 0 OR strpos(lower(coalesce(label, '') COLLATE "C"), ${s}) > 0 OR strpos(customer_id, ${param(args, f.search)}) > 0)`);
      }
    }
    return { sql: parts.join(" AND "), args };
  }

  /** Newest first; keyset on (created_at, id). */
  async page(companyId: string, env: Environment, f: WalletFilter, after: [string, string] | null, limit: number): Promise<Wallet[]> {
    return (await newestFirst<WalletRow>(this.db, "*", "wallets", this.where(companyId, env, f), after, limit)).map(toWallet);
  }

  async count(companyId: string, env: Environment, f: WalletFilter): Promise<number> {
    if (Object.values(f).every((v) => v === undefined)) return listCount(this.db, companyId, env, "wallets");
    const w = this.where(companyId, env, f);
    return (await this.db.read<{ n: number }>(`SELECT count(*) AS n FROM wallets WHERE ${w.sql}`, w.args))[0]!.n;
  }
}
