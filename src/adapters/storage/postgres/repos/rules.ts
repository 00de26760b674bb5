// Compliance rules of a company and environment on PostgreSQL: the twin of ../../repos/rules.ts (same port, same
// answers). Insertion order is the `seq` identity column (migration 0009), where SQLite walks its rowid; strpos for
// instr. No cache of the active rules: PostgreSQL has no cheap "another connection committed" mark like SQLite's
// data_version, so every `active()` is one indexed SELECT, and a write by another process is seen at once.
import type { Environment } from "../../../../domain/types.ts";
import type { Rule } from "../../../../domain/rules/types.ts";
import type { RuleFilter, RuleRepository } from "../../../../ports/rules.ts";
import { RULE_COLUMNS, ruleInsertValues, ruleSaveValues, ruleWhere, toRule, type RuleRow } from "../../repos/rules.ts";
import type { PgSession } from "../session.ts";

const PG_FILTER = { param: (n: number) => `$${n}`, contains: (col: string, p: string) => `strpos(${col}, ${p}) > 0` };

export class PgRules implements RuleRepository {
  constructor(private readonly db: PgSession) {}

  /** The environment's active rules, oldest first (insertion order), as the rule checkpoints evaluate them. */
  async active(companyId: string, env: Environment): Promise<Rule[]> {
    const rows = await this.db.read<RuleRow>(`SELECT ${RULE_COLUMNS} FROM rules WHERE company_id = $1 AND environment = $2 AND is_active = 1 ORDER BY seq`, [companyId, env]);
    return rows.map(toRule);
  }

  async get(companyId: string, env: Environment, id: string): Promise<Rule | undefined> {
    const r = (await this.db.read<RuleRow>(`SELECT ${RULE_COLUMNS} FROM rules WHERE id = $1 AND company_id = $2 AND environment = $3`, [id, companyId, env]))[0];
    return r ? toRule(r) : undefined;
  }

  /** Newest first by insertion order (`seq`): rows below `beforeSeq`, at most `n`. */
  async page(companyId: string, env: Environment, f: RuleFilter, beforeSeq: number | null, n: number): Promise<{ seq: number; rule: Rule }[]> {
    const w = ruleWhere(companyId, env, f, PG_FILTER);
    const args = beforeSeq === null ? [...w.args, n] : [...w.args, beforeSeq, n];
    const before = beforeSeq === null ? "" : ` AND seq < $${w.args.length + 1}`;
    const rows = await this.db.read<RuleRow & { seq: number }>(`SELECT seq, ${RULE_COLUMNS} FROM rules WHERE ${w.sql}${before} ORDER BY seq DESC LIMIT $${args.length}`, args);
    return rows.map((r) => ({ seq: r.seq, rule: toRule(r) }));
  }

  async count(companyId: string, env: Environment, f: RuleFilter): Promise<number> {
    const w = ruleWhere(companyId, env, f, PG_FILTER);
    return (await this.db.read<{ n: number }>(`SELECT count(*)::int AS n FROM rules WHERE ${w.sql}`, w.args))[0]!.n;
  }

  /** Writes a new rule, inside the caller's unit of work (its audit entry is the caller's too). */
  async insert(rule: Rule): Promise<void> {
    const values = ruleInsertValues(rule);
    await this.db.q(`INSERT INTO rules (${RULE_COLUMNS}, condition_count, search_text) VALUES (${values.map((_, i) => `$${i + 1}`).join(", ")})`, values);
  }

  /** Writes a rule's fields and its updatedAt, inside the caller's unit of work. */
  async save(rule: Rule): Promise<void> {
    await this.db.q(
      `UPDATE rules SET name = $1, description = $2, category = $3, stage = $4, action = $5, severity = $6, is_active = $7, threshold = $8, threshold_currency = $9,
         jurisdictions = $10, metadata = $11, condition = $12, condition_count = $13, search_text = $14, updated_at = $15 WHERE id = $16 AND company_id = $17 AND environment = $18`,
      ruleSaveValues(rule),
    );
  }

  /**
   * The live rule a test rule was promoted to, while that live rule exists (from the test environment's audit log):
   * the newest promotion entry whose live rule exists, in one statement (SQLite walks the entries one by one).
   */
  async promotedTo(companyId: string, testRuleId: string): Promise<string | null> {
    const r = await this.db.one<{ id: string }>(
      `SELECT r.id FROM audit_log a JOIN rules r ON r.id = (a.detail::jsonb ->> 'liveRuleId') AND r.company_id = a.company_id AND r.environment = 'live'
        WHERE a.company_id = $1 AND a.environment = 'test' AND a.entity_type = 'Rule' AND a.entity_id = $2 AND a.action = 'rule.promoted'
        ORDER BY a.seq DESC LIMIT 1`,
      [companyId, testRuleId],
    );
    return r?.id ?? null;
  }
}
