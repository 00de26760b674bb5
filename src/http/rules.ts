// /api/v2/rules: list, create, read, change, deactivate (Part 2 "Rules and thresholds", "States and transitions → Rule").
// Rules belong to the key's environment; VALIDATION_ERROR is 422 here with details.issues of { path, message }.
// Operator routes (Caravan's own): a live key lists the test rules and promotes one to live, copied with its conditions.
import { Type } from "@sinclair/typebox";
import { apiError, type Issue } from "../domain/errors.ts";
import { normalizeForSearch } from "../domain/customers.ts";
import {
  DEFAULT_THRESHOLD_OPERATOR,
  LIMITS,
  RULE_CATEGORIES,
  RULE_SEVERITIES,
  RULE_STAGES,
  type Rule,
} from "../domain/rules/types.ts";
import { validateCreateRule, validateUpdateRule, type IntegrationLookup } from "../domain/rules/validate.ts";
import type { Repositories } from "../ports/repositories.ts";
import type { ProviderSettingsRepository } from "../ports/provider-settings.ts";
import type { PromoteOutcome, RuleFilter, RuleRepository } from "../ports/rules.ts";
import type { ActorRuntime } from "../actors/runtime.ts";
import { rulesAddress, type RuleCommand, type RuleMsg } from "../actors/rules.ts";
import { askActor, unwrap } from "./outcome.ts";
import { created, ok, page, invalid, type ApiKit, type RouteContext } from "./kit.ts";
import { keysetPageAsync } from "./paging.ts";
import { q, type QueryParam } from "./query.ts";
import * as api from "../api/rules.ts";

export interface RuleRouteDeps {
  repositories: { rules: RuleRepository } & Pick<Repositories, "tenancy">;
  cursorKey: Uint8Array;
  providerSettings: ProviderSettingsRepository;
  /** Creates, changes, deactivations and promotions are commands to the company's rules actor (src/actors/rules.ts). */
  runtime: ActorRuntime;
}

const ID = /^rul_[0-9a-z]{26}$/;
const read = { scope: "rules:read", permission: "rules:view" } as const;
const create = { scope: "rules:write", permission: "rules:create" } as const;
// Part 2: `rules:update` also for delete.
const update = { scope: "rules:write", permission: "rules:update" } as const;
// A promotion changes live: a live key, as every change that reaches live from outside its environment (thresholds, switches).
// Part 1: "there is no API route for promoting test rules to live": a dashboard power, a member's session only.
const promoteAccess = { scope: "rules:write", permission: "rules:create", liveOnly: true, officer: true } as const;
const promotableAccess = { scope: "rules:read", permission: "rules:view", liveOnly: true } as const;

/** A choice filter (Part 2): an empty value or `all` means no filter (null). */
function choice<const V extends string>(values: readonly V[]): QueryParam<V | null> {
  return {
    schema: Type.Union([...values, "all", ""].map((v) => Type.Literal(v))),
    parse: (raw) =>
      raw === "" || raw === "all" ? { value: null } : (values as readonly string[]).includes(raw) ? { value: raw as V } : { error: `must be one of ${values.join(", ")} or all` },
  };
}
const isActiveFilter: QueryParam<boolean | null> = {
  schema: Type.Union(["true", "false", "all", ""].map((v) => Type.Literal(v))),
  parse: (raw) => (raw === "" || raw === "all" ? { value: null } : raw === "true" ? { value: true } : raw === "false" ? { value: false } : { error: "must be true, false or all" }),
};

function notFound(id: string): never {
  throw apiError("RULE_NOT_FOUND", { details: { resource: "Rule", id } });
}

/** Part 2 list item; `threshold` is answered as a number, the effective operator, asset and network are named. */
function present(r: Rule) {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    category: r.category,
    stage: r.stage,
    action: r.action,
    severity: r.severity,
    isActive: r.isActive,
    threshold: r.threshold === null ? null : Number(r.threshold),
    thresholdCurrency: r.thresholdCurrency,
    jurisdictions: r.jurisdictions,
    asset: r.metadata?.asset ?? "all",
    network: r.metadata?.network ?? "all",
    thresholdOperator: r.metadata?.thresholdOperator ?? DEFAULT_THRESHOLD_OPERATOR,
    conditionCount: r.condition?.rules.length ?? 0,
    environment: r.environment,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export function ruleRoutes(kit: ApiKit, deps: RuleRouteDeps) {
  const repo = deps.repositories.rules;

  /** The company's integrations as rules see them: `int_…` ID, name, the one enabled switch. */
  async function integrations(c: RouteContext): Promise<{ lookup: IntegrationLookup; names: Map<string, string> }> {
    const refs = (await deps.providerSettings.list(c.auth.company.id, c.auth.environment, "integration"))
      .filter((s) => s.id !== null)
      .map((s) => ({ id: s.id!, name: s.name, enabled: s.enabled }));
    return { lookup: (id) => refs.find((r) => r.id === id), names: new Map(refs.map((r) => [r.id, r.name])) };
  }

  /** Members carry no display name: `name` is their email (docs/rules.md). */
  async function member(c: RouteContext, id: string | null) {
    if (id === null) return null;
    const m = (await deps.repositories.tenancy.members(c.auth.company.id, [id])).get(id);
    return m ? { id: m.id, name: m.name, email: m.email } : null;
  }

  /** `names`: the integrations' names when the request already read them (create and change validate against them). */
  async function detail(c: RouteContext, r: Rule, known?: Map<string, string>) {
    const names = known ?? (await integrations(c)).names;
    return {
      ...present(r),
      createdBy: await member(c, r.createdById),
      conditions: (r.condition?.rules ?? []).map((b) => ({
        type: b.type,
        action: b.action,
        field: b.field ?? null,
        query: b.query ?? null,
        integrationId: b.integrationId ?? null,
        integrationName: b.integrationId === undefined ? null : (names.get(b.integrationId) ?? null),
        operator: b.operator ?? null,
        value: b.value ?? null,
        subjectMatch: b.type === "else" ? null : (b.subjectMatch ?? "any"),
      })),
      // Every rule is written through this API in the branch structure of Part 2: there are no legacy conditions.
      hasLegacyConditions: false,
    };
  }

  /** A rule's body, checked against the environment's integrations (whose names the answer then shows). */
  async function readRule<T>(b: unknown, c: RouteContext, check: (b: unknown, lookup: IntegrationLookup) => { ok: true; value: T } | { ok: false; issues: Issue[] }) {
    const refs = await integrations(c);
    const v = check(b, refs.lookup);
    if (!v.ok) invalid(v.issues);
    return { value: v.value, names: refs.names };
  }

  /** One typed command to the company's rules actor, with the key's environment and who acts. */
  async function command<T>(c: RouteContext, cmd: RuleCommand): Promise<T> {
    const msg = { ...cmd, companyId: c.auth.company.id, environment: c.auth.environment, actor: c.auth.actor, memberId: c.auth.member.id } as RuleMsg;
    return unwrap(await askActor<T>(deps.runtime, rulesAddress(c.auth.company.id), msg)).data;
  }
  const load = async (c: RouteContext, id: string): Promise<Rule> => (ID.test(id) ? await repo.get(c.auth.company.id, c.auth.environment, id) : undefined) ?? notFound(id);

  return kit.group("/api/v2/rules", (r) =>
    r
      .get(
        "/promotable",
        { summary: "Operator: the test environment's rules, each with the live rule it was promoted to (live key)", access: promotableAccess, tags: ["rules", "operator"], query: { limit: q.limit(200) } },
        async (c) => {
          const rows = await repo.page(c.auth.company.id, "test", {}, null, c.query.limit);
          return ok(await Promise.all(rows.map(async ({ rule }) => ({ ...present(rule), promotedTo: await repo.promotedTo(c.auth.company.id, rule.id) }))));
        },
      )
      .post("/:id/promote", { summary: "Operator (a member's live console session, not an API key): copy a test rule (the path's ID) to live with its conditions; all or nothing, audited in both environments", access: promoteAccess, tags: ["rules", "operator"] }, async (c) => {
        const id = c.params.id;
        if (!ID.test(id)) notFound(id);
        const res = await command<PromoteOutcome>(c, { type: "promote", testRuleId: id });
        if (!res.ok) {
          if (res.code === "RULE_NOT_FOUND") throw apiError("RULE_NOT_FOUND", { message: "No rule with this ID in the test environment", details: { resource: "Rule", id, environment: "test" } });
          if (res.code === "RULE_ALREADY_PROMOTED")
            throw apiError("RULE_ALREADY_PROMOTED", { message: `The rule was promoted to live already as ${res.liveRuleId}; change that rule instead`, details: { ruleId: id, liveRuleId: res.liveRuleId } });
          invalid(res.issues);
        }
        return created(await detail(c, res.rule), { promotedFrom: res.from.id });
      })
      .get(
        "/",
        {
          summary: "List the environment's rules, newest first; choice filters take all or an empty value for no filter",
          access: read,
          tags: ["rules"],
          query: {
            category: choice(RULE_CATEGORIES),
            isActive: isActiveFilter,
            severity: choice(RULE_SEVERITIES),
            stage: choice(RULE_STAGES),
            search: q.string(LIMITS.search, 0),
            limit: q.limit(100),
            cursor: q.cursor(),
          },
        },
        async (c) => {
          const { auth } = c;
          const f: RuleFilter = {
            category: c.query.category,
            isActive: c.query.isActive,
            severity: c.query.severity,
            stage: c.query.stage,
            search: c.query.search ? normalizeForSearch(c.query.search) || undefined : undefined,
          };
          const { rows, meta } = await keysetPageAsync({
            key: deps.cursorKey,
            scope: c.auth,
            list: `rules:${auth.company.id}:${auth.environment}:${JSON.stringify([f.category ?? null, f.isActive ?? null, f.severity ?? null, f.stage ?? null, f.search ?? null])}`,
            cursor: c.query.cursor,
            limit: c.query.limit,
            fetch: (after, n) => repo.page(auth.company.id, auth.environment, f, after === null || typeof after[0] !== "number" ? null : after[0], n),
            position: (row) => [row.seq],
            total: () => repo.count(auth.company.id, auth.environment, f),
          });
          return page(rows.map((r) => present(r.rule)), meta);
        },
      )
      .post("/", { summary: "Create a rule in the key's environment", access: create, body: api.CreateRule, read: (b, c) => readRule(b, c, validateCreateRule), validationStatus: 422, tags: ["rules"] }, async (c) =>
        created(await detail(c, await command<Rule>(c, { type: "create", input: c.body.value }), c.body.names)),
      )
      .get("/:id", { summary: "One rule with its conditions (each branch with its integration's name)", access: read, tags: ["rules"] }, async (c) => ok(await detail(c, await load(c, c.params.id))))
      .patch(
        "/:id",
        { summary: "Change a rule (any create field, at least one; isActive true reactivates it)", access: update, body: api.UpdateRule, read: async (b, c) => (await load(c, c.params.id), readRule(b, c, validateUpdateRule)), validationStatus: 422, tags: ["rules"] },
        async (c) => {
          const rule = (await command<Rule | null>(c, { type: "update", id: c.params.id, changes: c.body.value })) ?? notFound(c.params.id);
          return ok(await detail(c, rule, c.body.names));
        },
      )
      .delete("/:id", { summary: "Deactivate a rule (kept, isActive false)", access: update, tags: ["rules"] }, async (c) => {
        await load(c, c.params.id);
        const rule = (await command<Rule | null>(c, { type: "deactivate", id: c.params.id })) ?? notFound(c.params.id);
        return ok(await detail(c, rule));
      }),
  );
}
