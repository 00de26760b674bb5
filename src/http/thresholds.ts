// /api/v2/thresholds: list, create, read, change (Part 2, "Rules and thresholds"). Thresholds are the company's; only live keys change them.
import { Type } from "@sinclair/typebox";
import { apiError } from "../domain/errors.ts";
import { normalizeForSearch } from "../domain/customers.ts";
import { LIMITS, THRESHOLD_TYPES, validateCreateThreshold, validateUpdateThreshold, type Threshold, type UpdateResult } from "../domain/thresholds.ts";
import type { ActorRuntime } from "../actors/runtime.ts";
import { thresholdsAddress, type ThresholdCommand, type ThresholdMsg } from "../actors/thresholds.ts";
import type { CreateThresholdOutcome, ThresholdRepository, UpdateThresholdOutcome } from "../ports/thresholds.ts";
import { askActor, unwrap } from "./outcome.ts";
import { checked, created, ok, page, invalid, type ApiKit, type RouteContext } from "./kit.ts";
import type { ScopedAccess } from "./auth.ts";
import { q, type QueryParam } from "./query.ts";
import * as api from "../api/thresholds.ts";

export interface ThresholdRouteDeps {
  repositories: { thresholds: ThresholdRepository };
  /** Creates and changes are commands to the company's thresholds actor (src/actors/thresholds.ts). */
  runtime: ActorRuntime;
}

const ID = /^thr_[0-9a-z]{26}$/;
const read = { scope: "thresholds:read", permission: "thresholds:view" } as const;
// Part 2 Authentication 4: thresholds are shared by both environments; only a live key changes them.
const create = { scope: "thresholds:write", permission: "thresholds:create", liveOnly: true } as const;
const update: ScopedAccess = { scope: "thresholds:write", permission: "thresholds:update", liveOnly: true, conditional: [{ permission: "thresholds:disable", when: "the change switches an active threshold off (isActive: false)" }] };

/** A choice filter: as for rules (Part 2), an empty value or `all` means no filter (null). */
function choice<const V extends string>(values: readonly V[]): QueryParam<V | null> {
  return {
    schema: Type.Union([...values, "all"].map((v) => Type.Literal(v))),
    parse: (raw) =>
      raw === "" || raw === "all" ? { value: null } : (values as readonly string[]).includes(raw) ? { value: raw as V } : { error: `must be one of ${values.join(", ")} or all` },
  };
}

function notFound(id: string): never {
  throw apiError("THRESHOLD_NOT_FOUND", { details: { resource: "Threshold", id } });
}

/** List order (Part 2: by jurisdiction, then type); the ID breaks no ties (the pair is unique) but keeps the order total. */
const listKey = (t: Threshold) => [t.countryCode, t.type, t.id] as const;
function after(a: Threshold, b: Threshold): boolean {
  const [x, y] = [listKey(a), listKey(b)];
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] > y[i];
  return false;
}

/** The refusals of a change, in the order Part 2 gives them: 404, IMMUTABLE_FIELD, VALIDATION_ERROR. */
function refuseUpdate(id: string, res: { ok: false; kind: "not_found" } | Extract<UpdateResult, { ok: false }>): never {
  switch (res.kind) {
    case "not_found":
      return notFound(id);
    case "immutable":
      throw apiError("IMMUTABLE_FIELD", { message: `${res.fields.join(" and ")} cannot be changed; create a threshold for another jurisdiction or type`, details: { fields: res.fields } });
    case "invalid":
      return invalid(res.issues);
  }
}

export function thresholdRoutes(kit: ApiKit, deps: ThresholdRouteDeps) {
  const repo = deps.repositories.thresholds;
  /** One typed command to the company's thresholds actor, with who acts. */
  async function command<T>(c: RouteContext, cmd: ThresholdCommand): Promise<T> {
    const msg = { ...cmd, companyId: c.auth.company.id, environment: "live", actor: c.auth.actor, memberId: c.auth.member.id } as ThresholdMsg;
    return unwrap(await askActor<T>(deps.runtime, thresholdsAddress(c.auth.company.id), msg)).data;
  }

  /**
   * A change's body, read against the threshold it names (404 first; IMMUTABLE_FIELD and VALIDATION_ERROR depend on
   * its jurisdiction and type, which never change). The change is checked again where it commits.
   */
  async function readUpdate(b: unknown, c: RouteContext): Promise<unknown> {
    const id = c.params.id;
    const current = ID.test(id) ? await repo.get(c.auth.company.id, id) : undefined;
    if (!current) notFound(id);
    const v = validateUpdateThreshold(b, current);
    if (!v.ok) refuseUpdate(id, v);
    return b;
  }

  return kit.group("/api/v2/thresholds", (r) =>
    r
      .get(
        "/",
        {
          summary: "List the company's thresholds by jurisdiction, then type; meta.activeCount counts every active one (0: FATF fallbacks apply)",
          access: read,
          tags: ["thresholds"],
          query: { type: choice(THRESHOLD_TYPES), status: choice(["active", "inactive"] as const), search: q.string(LIMITS.search), limit: q.limit(100), cursor: q.cursor() },
        },
        async (c) => {
          const companyId = c.auth.company.id;
          const { type, status, search, limit, cursor } = c.query;
          // At most (249 + 2) jurisdictions × 2 types per company: filtered in memory, with Unicode-aware search.
          const all = await repo.all(companyId);
          const needle = search === undefined ? undefined : normalizeForSearch(search);
          const matches = all.filter(
            (t) =>
              (!type || t.type === type) &&
              (!status || t.isActive === (status === "active")) &&
              (needle === undefined || [t.countryCode, t.name, t.regulation, t.regulatoryBody].some((s) => s !== null && normalizeForSearch(s).includes(needle))),
          );
          let start = 0;
          if (cursor !== undefined) {
            // Part 2: the cursor of this list is a threshold ID (of this company); anything else was not handed out.
            const at = ID.test(cursor) ? all.find((t) => t.id === cursor) : undefined;
            if (!at) throw apiError("INVALID_CURSOR", { message: "The cursor must be the ID of one of the company's thresholds (meta.cursor of the previous page)" });
            start = matches.findIndex((t) => after(t, at));
            if (start < 0) start = matches.length;
          }
          const rows = matches.slice(start, start + limit);
          const hasMore = matches.length > start + limit;
          return page(rows, { cursor: hasMore ? rows[rows.length - 1].id : null, hasMore, total: matches.length, limit }, { activeCount: await repo.activeCount(companyId) });
        },
      )
      .post("/", { summary: "Create a threshold (live key)", access: create, body: api.CreateThreshold, read: checked(validateCreateThreshold), validationStatus: 422, tags: ["thresholds"] }, async (c) => {
        const res = await command<CreateThresholdOutcome>(c, { type: "create", input: c.body });
        if (!res.ok)
          throw apiError("THRESHOLD_EXISTS", {
            message: `The company already has a ${c.body.type} threshold for ${c.body.countryCode}`,
            details: { countryCode: c.body.countryCode, type: c.body.type, id: res.existingId },
          });
        return created(res.threshold);
      })
      .get("/:id", { summary: "One threshold", access: read, tags: ["thresholds"] }, async (c) => {
        const t = ID.test(c.params.id) ? await repo.get(c.auth.company.id, c.params.id) : undefined;
        return t ? ok(t) : notFound(c.params.id);
      })
      .patch("/:id", { summary: "Change a threshold (live key; not countryCode or type)", access: update, body: api.UpdateThreshold, read: readUpdate, validationStatus: 422, tags: ["thresholds"] }, async (c) => {
        const id = c.params.id;
        const res = await command<UpdateThresholdOutcome>(c, { type: "update", id, body: c.body, canDisable: c.auth.can("thresholds:disable") });
        if (res.ok) return ok(res.threshold);
        switch (res.kind) {
          case "not_found":
          case "immutable":
          case "invalid":
            return refuseUpdate(id, res);
          case "needs_disable":
            throw apiError("INSUFFICIENT_PERMISSION", {
              message: `The role ${c.auth.member.role} lacks the permission thresholds:disable (switching an active threshold off)`,
              details: { permission: "thresholds:disable" },
            });
          default: {
            const never: never = res;
            return never;
          }
        }
      }),
  );
}
