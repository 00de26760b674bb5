// A blind index table (`<table>(company_id, environment, gram, <owner>)`): HMAC tags of the trigrams of a sealed text
// (src/domain/blind-index.ts), replaced with the text and intersected to find candidates, which the caller confirms
// on the opened text. Used for customer names and for case titles and descriptions.
import type { Storage } from "../index.ts";
import type { Environment } from "../../../domain/types.ts";

/** How many rows of one gram are counted before it is known to be common (cheap probe, bounded). */
export const GRAM_PROBE = 5000;

export class GramIndex {
  constructor(
    private readonly s: Storage,
    private readonly table: "customer_name_grams" | "case_text_grams",
    private readonly owner: "customer_id" | "case_id",
  ) {}

  replace(companyId: string, env: Environment, ownerId: string, grams: string[]): void {
    this.s.stmt(`DELETE FROM ${this.table} WHERE ${this.owner} = ?`).run(ownerId);
    const ins = this.s.stmt(`INSERT OR IGNORE INTO ${this.table} (company_id, environment, gram, ${this.owner}) VALUES (?, ?, ?, ?)`);
    for (const g of grams) ins.run(companyId, env, g, ownerId);
  }

  /**
   * Owners that have every gram (candidates). The rarest grams are intersected first: a common trigram ("ann") can sit
   * in a tenth of all names; three of the rarest narrow enough, the caller confirms the rest on the opened text.
   */
  withAll(companyId: string, env: Environment, grams: string[], cap: number): string[] {
    if (grams.length === 0) return [];
    const count = this.s.stmt(`SELECT count(*) AS n FROM (SELECT 1 FROM ${this.table} WHERE company_id = ? AND environment = ? AND gram = ? LIMIT ?)`);
    const sized = grams.map((g) => ({ g, n: (count.get(companyId, env, g, GRAM_PROBE + 1) as { n: number }).n })).sort((a, b) => a.n - b.n);
    if (sized[0].n === 0) return [];
    const use = sized.slice(0, 3).map((x) => x.g);
    const one = `SELECT ${this.owner} AS id FROM ${this.table} WHERE company_id = ? AND environment = ? AND gram = ?`;
    const sql = `${use.map(() => one).join(" INTERSECT ")} LIMIT ?`;
    return (this.s.stmt(sql).all(...use.flatMap((g) => [companyId, env, g]), cap) as { id: string }[]).map((r) => r.id);
  }
}
