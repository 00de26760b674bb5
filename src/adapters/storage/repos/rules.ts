// Compliance rules of a company and environment (Part 2 "Rule"): keyset list, the writes the rules actor's unit of work
// runs (src/actors/rules.ts), and `active()` for the rule checkpoints: prepared, cached per company and environment.
import { normalizeForSearch } from "../../../domain/customers.ts";
import type { Environment } from "../../../domain/types.ts";
import type { Rule, RuleCategory, RuleSeverity, RuleStage } from "../../../domain/rules/types.ts";
import type { Storage } from "../types.ts";
import type { RowOf } from "./row.ts";
import type { rules as rulesTable } from "../../../../db/schema/rules.ts";
import type { RuleFilter, RuleRepository } from "../../../ports/rules.ts";

export type RuleRow = RowOf<typeof rulesTable>;

export type { RuleFilter };

export function toRule(r: RuleRow): Rule {
  return {
    id: r.id,
    companyId: r.company_id,
    environment: r.environment,
    name: r.name,
    description: r.description,
    category: r.category,
    stage: r.stage,
    action: r.action,
    severity: r.severity,
    isActive: r.is_active === 1,
    threshold: r.threshold,
    thresholdCurrency: r.threshold_currency,
    jurisdictions: JSON.parse(r.jurisdictions) as string[],
    metadata: r.metadata === null ? null : (JSON.parse(r.metadata) as Rule["metadata"]),
    condition: r.condition === null ? null : (JSON.parse(r.condition) as Rule["condition"]),
    createdById: r.created_by_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export const searchText = (name: string, description: string | null) => normalizeForSearch(description === null ? name : `${name}\n${description}`);

/**
 * Active rules per company and environment, shared by every Rules instance over the same storage (routes write,
 * actors read): a write through any instance drops its key, and a commit by another connection (another process on
 * the same file) changes `PRAGMA data_version`, which empties the whole cache. Bounded: the oldest key goes first.
 */
const CACHE_KEYS = 1024;
interface ActiveCache {
  dataVersion: number;
  byKey: Map<string, readonly Rule[]>;
}
const caches = new WeakMap<Storage, ActiveCache>();
function cacheOf(s: Storage): ActiveCache {
  let c = caches.get(s);
  if (!c) caches.set(s, (c = { dataVersion: -1, byKey: new Map() }));
  return c;
}

export const RULE_COLUMNS =
  "id, company_id, environment, name, description, category, stage, action, severity, is_active, threshold, threshold_currency, jurisdictions, metadata, condition, created_by_id, created_at, updated_at";

/** A rule's own fields as the table stores them, in the order both of its writes bind them. */
export function storedFields(rule: Rule): (string | number | null)[] {
  return [
    rule.name,
    rule.description,
    rule.category,
    rule.stage,
    rule.action,
    rule.severity,
    rule.isActive ? 1 : 0,
    rule.threshold,
    rule.thresholdCurrency,
    JSON.stringify(rule.jurisdictions),
    rule.metadata === null ? null : JSON.stringify(rule.metadata),
    rule.condition === null ? null : JSON.stringify(rule.condition),
  ];
}

/** The values of a rule's INSERT, in the order of `RULE_COLUMNS, condition_count, search_text`. */
export function ruleInsertValues(rule: Rule): (string | number | null)[] {
  return [rule.id, rule.companyId, rule.environment, ...storedFields(rule), rule.createdById, rule.createdAt, rule.updatedAt, rule.condition?.rules.length ?? 0, searchText(rule.name, rule.description)];
}

/** The values of a rule's UPDATE: its stored fields, condition_count, search_text, updated_at, then id, company_id, environment. */
export function ruleSaveValues(rule: Rule): (string | number | null)[] {
  return [...storedFields(rule), rule.condition?.rules.length ?? 0, searchText(rule.name, rule.description), rule.updatedAt, rule.id, rule.companyId, rule.environment];
}

/** How a dialect writes a parameter (its 1-based position) and "column contains the text". */
export interface FilterDialect {
  param(n: number): string;
  contains(column: string, param: string): string;
}

/** The WHERE clause of a rule list or count, and its arguments in order (both engines build it here). */
export function ruleWhere(companyId: string, env: Environment, f: RuleFilter, d: FilterDialect): { sql: string; args: (string | number)[] } {
  const args: (string | number)[] = [];
  const p = (v: string | number) => d.param(args.push(v));
  const parts = [`company_id = ${p(companyId)}`, `environment = ${p(env)}`];
  if (f.category) parts.push(`category = ${p(f.category)}`);
  if (f.severity) parts.push(`severity = ${p(f.severity)}`);
  if (f.stage) parts.push(`stage = ${p(f.stage)}`);
  if (f.isActive !== undefined && f.isActive !== null) parts.push(`is_active = ${p(f.isActive ? 1 : 0)}`);
  if (f.search) parts.push(d.contains("search_text", p(f.search)));
  return { sql: parts.join(" AND "), args };
}

export class Rules implements RuleRepository {
  private readonly cache: ActiveCache;

  constructor(private readonly s: Storage) {
    this.cache = cacheOf(s);
  }

  /** The environment's active rules, oldest first (insertion order) (the order rules are recorded in a verdict). Do not mutate. */
  active(companyId: string, env: Environment): Promise<Rule[]> {
    return this.s.run(() => this.activeNow(companyId, env));
  }

  private activeNow(companyId: string, env: Environment): Rule[] {
    const cache = this.cache;
    const version = this.s.dataVersion();
    if (version !== cache.dataVersion) {
      cache.byKey.clear();
      cache.dataVersion = version;
    }
    const key = `${companyId}:${env}`;
    const hit = cache.byKey.get(key);
    if (hit) return hit as Rule[];
    const rows = this.s.stmt(`SELECT ${RULE_COLUMNS} FROM rules WHERE company_id = ? AND environment = ? AND is_active = 1 ORDER BY rowid`).all(companyId, env) as unknown as RuleRow[];
    const rules = Object.freeze(rows.map((r) => Object.freeze(toRule(r))));
    if (cache.byKey.size >= CACHE_KEYS) cache.byKey.delete(cache.byKey.keys().next().value!);
    cache.byKey.set(key, rules);
    return rules as Rule[];
  }

  /**
   * Drops the key, inside the writer's unit of work: a read from any other flow waits until that unit commits or rolls
   * back (./gate.ts), and nothing inside a writer's unit reads the active rules (the runtime runs only writes there), so
   * no reader caches a state that was rolled back.
   */
  private invalidate(companyId: string, env: Environment): void {
    this.cache.byKey.delete(`${companyId}:${env}`);
  }

  get(companyId: string, env: Environment, id: string): Promise<Rule | undefined> {
    return this.s.run(() => this.getNow(companyId, env, id));
  }

  private getNow(companyId: string, env: Environment, id: string): Rule | undefined {
    const r = this.s.stmt(`SELECT ${RULE_COLUMNS} FROM rules WHERE id = ? AND company_id = ? AND environment = ?`).get(id, companyId, env) as RuleRow | null | undefined;
    return r ? toRule(r) : undefined;
  }

  private where(companyId: string, env: Environment, f: RuleFilter): { sql: string; args: (string | number)[] } {
    return ruleWhere(companyId, env, f, { param: () => "?", contains: (col, p) => `instr(${col}, ${p}) > 0` });
  }

  /** Newest first by insertion order (rowid: IDs made in one millisecond do not sort by creation): rows below `beforeSeq`, at most `n`. */
  page(companyId: string, env: Environment, f: RuleFilter, beforeSeq: number | null, n: number): Promise<{ seq: number; rule: Rule }[]> {
    return this.s.run(() => {
      const w = this.where(companyId, env, f);
      const sql = `SELECT rowid AS seq, ${RULE_COLUMNS} FROM rules WHERE ${w.sql}${beforeSeq === null ? "" : " AND rowid < ?"} ORDER BY rowid DESC LIMIT ?`;
      const args = beforeSeq === null ? [...w.args, n] : [...w.args, beforeSeq, n];
      return (this.s.stmt(sql).all(...args) as unknown as (RuleRow & { seq: number })[]).map((r) => ({ seq: r.seq, rule: toRule(r) }));
    });
  }

  count(companyId: string, env: Environment, f: RuleFilter): Promise<number> {
    return this.s.run(() => {
      const w = this.where(companyId, env, f);
      return (this.s.stmt(`SELECT count(*) AS n FROM rules WHERE ${w.sql}`).get(...w.args) as { n: number }).n;
    });
  }

  /** Writes a new rule, inside the caller's unit of work (its audit entry is the caller's too). */
  insert(rule: Rule): Promise<void> {
    return this.s.run(() => {
      this.s
        .stmt(`INSERT INTO rules (${RULE_COLUMNS}, condition_count, search_text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
        .run(...ruleInsertValues(rule));
      this.invalidate(rule.companyId, rule.environment);
    });
  }

  /** Writes a rule's fields and its updatedAt, inside the caller's unit of work. */
  save(rule: Rule): Promise<void> {
    return this.s.run(() => {
      this.s
        .stmt(
          "UPDATE rules SET name = ?, description = ?, category = ?, stage = ?, action = ?, severity = ?, is_active = ?, threshold = ?, threshold_currency = ?, jurisdictions = ?, metadata = ?, condition = ?, condition_count = ?, search_text = ?, updated_at = ? WHERE id = ? AND company_id = ? AND environment = ?",
        )
        .run(...ruleSaveValues(rule));
      this.invalidate(rule.companyId, rule.environment);
    });
  }

  /** The live rule a test rule was promoted to, while that live rule exists (from the test environment's audit log). */
  promotedTo(companyId: string, testRuleId: string): Promise<string | null> {
    return this.s.run(() => {
      const rows = this.s
        .stmt("SELECT detail FROM audit_log WHERE company_id = ? AND environment = 'test' AND entity_type = 'Rule' AND entity_id = ? AND action = 'rule.promoted' ORDER BY seq DESC")
        .all(companyId, testRuleId) as unknown as { detail: string }[];
      for (const r of rows) {
        const live = (JSON.parse(r.detail) as { liveRuleId?: string }).liveRuleId;
        if (live && this.getNow(companyId, "live", live)) return live;
      }
      return null;
    });
  }

}
