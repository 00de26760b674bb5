// A blind index table on PostgreSQL (`<table>(company_id, environment, gram, <owner>)`): the twin of ../../repos/grams.ts,
// HMAC tags of a sealed text's trigrams, replaced with the text and intersected to find candidates. Used for customer
// names (customer_name_grams) and case titles and descriptions (case_text_grams).
import type { Environment } from "../../../../domain/types.ts";
import { GRAM_PROBE as PROBE } from "../../repos/grams.ts";
import type { PgSession } from "../session.ts";

export class PgGramIndex {
  constructor(
    private readonly db: PgSession,
    private readonly table: "customer_name_grams" | "case_text_grams",
    private readonly owner: "customer_id" | "case_id",
  ) {}

  /** Replaces the owner's tags (one unit: the old tags never stay beside the new ones, nor both go). */
  replace(companyId: string, env: Environment, ownerId: string, grams: string[]): Promise<void> {
    return this.db.transaction(async () => {
      await this.db.q(`DELETE FROM ${this.table} WHERE ${this.owner} = $1`, [ownerId]);
      if (grams.length === 0) return;
      await this.db.q(
        `INSERT INTO ${this.table} (company_id, environment, gram, ${this.owner}) SELECT $1, $2, g, $3 FROM unnest($4::text[]) AS g ON CONFLICT DO NOTHING`,
        [companyId, env, ownerId, grams],
      );
    });
  }

  /**
   * Owners that have every gram (candidates), at most `cap`, in ID order (SQLite's INTERSECT answers in that order). The
   * rarest grams are intersected first, as on SQLite: each gram's rows are counted up to PROBE + 1 (one statement for
   * all), ties keep the caller's order, and the three rarest are intersected; the caller confirms the rest.
   */
  async withAll(companyId: string, env: Environment, grams: string[], cap: number): Promise<string[]> {
    if (grams.length === 0) return [];
    const counted = await this.db.read<{ g: string; n: number }>(
      `SELECT u.g, (SELECT count(*) FROM (SELECT 1 FROM ${this.table} WHERE company_id = $1 AND environment = $2 AND gram = u.g LIMIT $4) p)::int AS n
         FROM unnest($3::text[]) WITH ORDINALITY AS u(g, i) ORDER BY u.i`,
      [companyId, env, grams, PROBE + 1],
    );
    const sized = counted.sort((a, b) => a.n - b.n);
    if (sized[0]!.n === 0) return [];
    const use = sized.slice(0, 3).map((x) => x.g);
    const one = (i: number) => `SELECT ${this.owner} AS id FROM ${this.table} WHERE company_id = $1 AND environment = $2 AND gram = $${i + 3}`;
    const rows = await this.db.read<{ id: string }>(`${use.map((_, i) => one(i)).join(" INTERSECT ")} ORDER BY id LIMIT $${use.length + 3}`, [companyId, env, ...use, cap]);
    return rows.map((r) => r.id);
  }
}
