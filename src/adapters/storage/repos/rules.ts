// Compliance rules of a company and environment (Part 2 "Rule"): keyset list, create, change, deactivate (every change
// audited in its transaction), and `active()` for the rule checkpoints: prepared, cached per company and environment.
import { iso, newId } from "../../../domain/ids.ts";
import { normalizeForSearch } from "../../../domain/customers.ts";
import type { Environment } from "../../../domain/types.ts";
import type { Rule, RuleCategory, RuleSeverity, RuleStage } from "../../../domain/rules/types.ts";
import { validateCreateRule, type IntegrationLookup, type RuleInput } from "../../../domain/rules/validate.ts";
import type { Storage } from "../types.ts";
import { AuditLog, type AuditActor } from "./audit.ts";
import type { RowOf } from "./row.ts";
import type { rules as rulesTable } from "../../../../db/schema/rules.ts";
import type { PromoteOutcome, RuleChanger, RuleFilter, RuleRepository } from "../../../ports/rules.ts";

type RuleRow = RowOf<typeof rulesTable>;

export type { RuleFilter };
export type Changer = RuleChanger;

function toRule(r: RuleRow): Rule {
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

const searchText = (name: string, description: string | null) => normalizeForSearch(description === null ? name : `${name}\n${description}`);

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

const SHOWN_CHANGES: ReadonlySet<string> = new Set(["category", "stage", "action", "severity", "isActive", "threshold", "thresholdCurrency"]);

const COLUMNS =
  "id, company_id, environment, name, description, category, stage, action, severity, is_active, threshold, threshold_currency, jurisdictions, metadata, condition, created_by_id, created_at, updated_at";

export class Rules implements RuleRepository {
  private readonly audit: AuditLog;
  private readonly cache: ActiveCache;

  constructor(private readonly s: Storage) {
    this.audit = new AuditLog(s);
    this.cache = cacheOf(s);
  }

  /** The environment's active rules, oldest first (insertion order) (the order rules are recorded in a verdict). Do not mutate. */
  active(companyId: string, env: Environment): Rule[] {
    const cache = this.cache;
    const version = this.s.dataVersion();
    if (version !== cache.dataVersion) {
      cache.byKey.clear();
      cache.dataVersion = version;
    }
    const key = `${companyId}:${env}`;
    const hit = cache.byKey.get(key);
    if (hit) return hit as Rule[];
    const rows = this.s.stmt(`SELECT ${COLUMNS} FROM rules WHERE company_id = ? AND environment = ? AND is_active = 1 ORDER BY rowid`).all(companyId, env) as unknown as RuleRow[];
    const rules = Object.freeze(rows.map((r) => Object.freeze(toRule(r))));
    if (cache.byKey.size >= CACHE_KEYS) cache.byKey.delete(cache.byKey.keys().next().value!);
    cache.byKey.set(key, rules);
    return rules as Rule[];
  }

  private invalidate(companyId: string, env: Environment): void {
    this.cache.byKey.delete(`${companyId}:${env}`);
  }

  get(companyId: string, env: Environment, id: string): Rule | undefined {
    const r = this.s.stmt(`SELECT ${COLUMNS} FROM rules WHERE id = ? AND company_id = ? AND environment = ?`).get(id, companyId, env) as RuleRow | null | undefined;
    return r ? toRule(r) : undefined;
  }

  private where(companyId: string, env: Environment, f: RuleFilter): { sql: string; args: (string | number)[] } {
    const parts = ["company_id = ?", "environment = ?"];
    const args: (string | number)[] = [companyId, env];
    if (f.category) (parts.push("category = ?"), args.push(f.category));
    if (f.severity) (parts.push("severity = ?"), args.push(f.severity));
    if (f.stage) (parts.push("stage = ?"), args.push(f.stage));
    if (f.isActive !== undefined && f.isActive !== null) (parts.push("is_active = ?"), args.push(f.isActive ? 1 : 0));
    if (f.search) (parts.push("instr(search_text, ?) > 0"), args.push(f.search));
    return { sql: parts.join(" AND "), args };
  }

  /** Newest first by insertion order (rowid: IDs made in one millisecond do not sort by creation): rows below `beforeSeq`, at most `n`. */
  page(companyId: string, env: Environment, f: RuleFilter, beforeSeq: number | null, n: number): { seq: number; rule: Rule }[] {
    const w = this.where(companyId, env, f);
    const sql = `SELECT rowid AS seq, ${COLUMNS} FROM rules WHERE ${w.sql}${beforeSeq === null ? "" : " AND rowid < ?"} ORDER BY rowid DESC LIMIT ?`;
    const args = beforeSeq === null ? [...w.args, n] : [...w.args, beforeSeq, n];
    return (this.s.stmt(sql).all(...args) as unknown as (RuleRow & { seq: number })[]).map((r) => ({ seq: r.seq, rule: toRule(r) }));
  }

  count(companyId: string, env: Environment, f: RuleFilter): number {
    const w = this.where(companyId, env, f);
    return (this.s.stmt(`SELECT count(*) AS n FROM rules WHERE ${w.sql}`).get(...w.args) as { n: number }).n;
  }

  /** `origin` is added to the `rule.created` entry (a promotion names the test rule it copies). */
  create(companyId: string, env: Environment, input: RuleInput, by: Changer, now: number, origin: Record<string, unknown> = {}): Rule {
    const id = newId("rul", now);
    const at = iso(now);
    this.s.tx(() => {
      this.s
        .stmt(`INSERT INTO rules (${COLUMNS}, condition_count, search_text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
        .run(
          id,
          companyId,
          env,
          input.name,
          input.description,
          input.category,
          input.stage,
          input.action,
          input.severity,
          input.isActive ? 1 : 0,
          input.threshold,
          input.thresholdCurrency,
          JSON.stringify(input.jurisdictions),
          input.metadata === null ? null : JSON.stringify(input.metadata),
          input.condition === null ? null : JSON.stringify(input.condition),
          by.memberId,
          at,
          at,
          input.condition?.rules.length ?? 0,
          searchText(input.name, input.description),
        );
      this.audit.record(
        { companyId, environment: env, actor: by.actor, action: "rule.created", entityType: "Rule", entityId: id, detail: { category: input.category, action: input.action, isActive: input.isActive, ...origin } },
        now,
      );
    });
    this.invalidate(companyId, env);
    return this.get(companyId, env, id)!;
  }

  /**
   * Applies the changes; `action` names the audit entry (`rule.updated`, or `rule.deactivated` for DELETE).
   * Fields sent with their current value are not counted as changed; the rule's updatedAt moves only on a change.
   */
  update(companyId: string, env: Environment, id: string, changes: Partial<RuleInput>, by: Changer, now: number, action = "rule.updated"): Rule | undefined {
    try {
      return this.write(companyId, env, id, changes, by, now, action);
    } finally {
      // After the transaction (committed or not), so no reader caches a state that was rolled back.
      this.invalidate(companyId, env);
    }
  }

  private write(companyId: string, env: Environment, id: string, changes: Partial<RuleInput>, by: Changer, now: number, action: string): Rule | undefined {
    return this.s.tx(() => {
      const current = this.get(companyId, env, id);
      if (!current) return undefined;
      const next: Rule = { ...current, ...changes };
      const changed = (Object.keys(changes) as (keyof RuleInput)[]).filter((k) => JSON.stringify(current[k]) !== JSON.stringify(next[k]));
      if (changed.length === 0) return current;
      const at = iso(now);
      this.s
        .stmt(
          "UPDATE rules SET name = ?, description = ?, category = ?, stage = ?, action = ?, severity = ?, is_active = ?, threshold = ?, threshold_currency = ?, jurisdictions = ?, metadata = ?, condition = ?, condition_count = ?, search_text = ?, updated_at = ? WHERE id = ? AND company_id = ? AND environment = ?",
        )
        .run(
          next.name,
          next.description,
          next.category,
          next.stage,
          next.action,
          next.severity,
          next.isActive ? 1 : 0,
          next.threshold,
          next.thresholdCurrency,
          JSON.stringify(next.jurisdictions),
          next.metadata === null ? null : JSON.stringify(next.metadata),
          next.condition === null ? null : JSON.stringify(next.condition),
          next.condition?.rules.length ?? 0,
          searchText(next.name, next.description),
          at,
          id,
          companyId,
          env,
        );
      // The settings a reader of the log wants to see moved; texts and branches are named, not copied.
      const moved: Record<string, { from: unknown; to: unknown }> = {};
      for (const k of changed) if (SHOWN_CHANGES.has(k)) moved[k] = { from: current[k], to: next[k] };
      const detail: Record<string, unknown> = { fields: changed };
      if (Object.keys(moved).length) detail.changes = moved;
      this.audit.record({ companyId, environment: env, actor: by.actor, action, entityType: "Rule", entityId: id, detail }, now);
      return { ...next, updatedAt: at };
    });
  }

  /** The live rule a test rule was promoted to, while that live rule exists (from the test environment's audit log). */
  promotedTo(companyId: string, testRuleId: string): string | null {
    const rows = this.s
      .stmt("SELECT detail FROM audit_log WHERE company_id = ? AND environment = 'test' AND entity_type = 'Rule' AND entity_id = ? AND action = 'rule.promoted' ORDER BY seq DESC")
      .all(companyId, testRuleId) as unknown as { detail: string }[];
    for (const r of rows) {
      const live = (JSON.parse(r.detail) as { liveRuleId?: string }).liveRuleId;
      if (live && this.get(companyId, "live", live)) return live;
    }
    return null;
  }

  /**
   * Promotes a rule proven in `test` to `live`: a copy with every field and its conditions, in one transaction with an
   * audit entry in each environment (`rule.promoted` in test, `rule.created` naming its origin in live): all or
   * nothing. The copy is validated as a create in live against `liveIntegrations` (integrations are the company's,
   * one switch for both environments); a rule already promoted (its live copy still there) is refused with its ID.
   */
  promote(
    companyId: string,
    testRuleId: string,
    by: Changer,
    now: number,
    liveIntegrations: IntegrationLookup,
  ): PromoteOutcome {
    try {
      return this.s.tx(() => {
        const from = this.get(companyId, "test", testRuleId);
        if (!from) return { ok: false as const, code: "RULE_NOT_FOUND" as const };
        const already = this.promotedTo(companyId, testRuleId);
        if (already) return { ok: false as const, code: "RULE_ALREADY_PROMOTED" as const, liveRuleId: already };
        const copy: RuleInput = {
          name: from.name,
          description: from.description,
          category: from.category,
          stage: from.stage,
          action: from.action,
          severity: from.severity,
          isActive: from.isActive,
          threshold: from.threshold,
          thresholdCurrency: from.thresholdCurrency,
          jurisdictions: from.jurisdictions,
          metadata: from.metadata,
          condition: from.condition,
        };
        const v = validateCreateRule({ ...copy, threshold: copy.threshold === null ? null : Number(copy.threshold) }, liveIntegrations);
        if (!v.ok) return { ok: false as const, code: "VALIDATION_ERROR" as const, issues: v.issues };
        const rule = this.create(companyId, "live", copy, by, now, { promotedFrom: from.id });
        this.audit.record(
          { companyId, environment: "test", actor: by.actor, action: "rule.promoted", entityType: "Rule", entityId: from.id, detail: { liveRuleId: rule.id, conditionCount: from.condition?.rules.length ?? 0, via: by.actor.sessionId ? "console" : "cli" } },
          now,
        );
        return { ok: true as const, rule, from };
      });
    } finally {
      this.invalidate(companyId, "live");
    }
  }

  /** DELETE (Part 2): the rule is kept, inactive. Deleting an inactive rule changes nothing and records nothing. */
  deactivate(companyId: string, env: Environment, id: string, by: Changer, now: number): Rule | undefined {
    return this.update(companyId, env, id, { isActive: false }, by, now, "rule.deactivated");
  }
}
