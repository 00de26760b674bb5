// A blind index table on PostgreSQL: the twin of ../../repos/grams.ts (HMAC tags of a sealed text's trigrams, replaced
// with the text and intersected to find candidates, which the caller confirms on the opened text).
import type { Environment } from "../../../../domain/types.ts";
import { GRAM_PROBE } from "../../repos/grams.ts";
import type { PgSession } from "../session.ts";

export class PgGramIndex {
  constructor(
    private readonly db: PgSession,
    private readonly table: "customer_name_grams" | "case_text_grams",
    private readonly owner: "customer_id" | "case_id",
  ) {}

  async replace(companyId: string, env: Environment, ownerId: string, grams: string[]): Promise<void> {
    await this.db.q(`DELETE FROM ${this.table} WHERE ${this.owner} = $1`, [ownerId]);
    if (grams.length === 0) return;
    await this.db.q(
      `INSERT INTO ${this.table} (company_id, environment, gram, ${this.owner}) SELECT $1, $2, g, $3 FROM unnest($4::text[]) AS g ON CONFLICT DO NOTHING`,
      [companyId, env, ownerId, grams],
    );
  }

  /** Owners that have every gram (candidates): the three rarest grams intersected, in ID order as SQLite's INTERSECT answers. */
  async withAll(companyId: string, env: Environment, grams: string[], cap: number): Promise<string[]> {
    if (grams.length === 0) return [];
    const counts = await this.db.read<{ g: string; n: number }>(
      `SELECT g, (SELECT count(*) FROM (SELECT 1 FROM ${this.table} WHERE company_id = $1 AND environment = $2 AND gram = g LIMIT $4) AS probe)::int AS n
         FROM unnest($3::text[]) WITH ORDINALITY AS t(g, k) ORDER BY k`,
      [companyId, env, grams, GRAM_PROBE + 1],
    );
    const sized = counts.sort((a, b) => a.n - b.n);
    if (sized[0]!.n === 0) return [];
    const use = sized.slice(0, 3).map((x) => x.g);
    const one = (k: number) => `SELECT ${this.owner} AS id FROM ${this.table} WHERE company_id = $1 AND environment = $2 AND gram = $${k + 3}`;
    const sql = `${use.map((_, k) => one(k)).join(" INTERSECT ")} ORDER BY id LIMIT $${use.length + 3}`;
    return (await this.db.read<{ id: string }>(sql, [companyId, env, ...use, cap])).map((r) => r.id);
  }
}
