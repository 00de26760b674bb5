// /api/v2/customers: create, list, deactivate, reactivate, erase, travel-rule identity (Part 1, Customers).
import { apiError, type Issue } from "../domain/errors.ts";
import { newId } from "../domain/ids.ts";
import { maskName } from "../domain/masking.ts";
import { normalizeForSearch, validateCreateCustomer } from "../domain/customers.ts";
import { validateIdentityBody, type Person } from "../domain/ivms101/index.ts";
import { nameGrams, type CustomerCommand } from "../actors/customer.ts";
import type { ActorRuntime } from "../actors/runtime.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import type { CustomerListItem } from "../ports/customers.ts";
import type { Repositories } from "../ports/repositories.ts";
import { checked, invalid as kitInvalid, page, type ApiKit, type RouteContext, type Reply } from "./kit.ts";
import { keysetPageAsync } from "./paging.ts";
import { q } from "./query.ts";
import { askActor, unwrap } from "./outcome.ts";
import * as api from "../api/customers.ts";

export interface CustomerRouteDeps {
  repositories: Pick<Repositories, "customers">;
  runtime: ActorRuntime;
  pii: Sealer;
  cursorKey: Uint8Array;
  nameIndexKey: Uint8Array;
}

const ID = /^cus_[0-9a-z]{26}$/;
const read = { scope: "customers:read", permission: "customers:view" } as const;
const write = { scope: "customers:write", permission: "customers:update" } as const;
/** Names found through the blind index are checked against the real name; at most this many candidates. */
const NAME_CANDIDATES = 50_000;

function notFound(id: string): never {
  throw apiError("CUSTOMER_NOT_FOUND", { details: { resource: "Customer", id } });
}

/** Customers answer VALIDATION_ERROR with 400 (Part 1). */
function invalid(issues: Issue[]): never {
  return kitInvalid(issues, 400);
}

/** A deactivation's body (optional): its reason, or null. */
function readDeactivate(b: unknown): string | null {
  if (b === undefined) return null;
  if (b === null || typeof b !== "object" || Array.isArray(b)) invalid([{ path: "", message: "the body must be a JSON object" }]);
  const issues: Issue[] = Object.keys(b as object).filter((k) => k !== "reason").map((k) => ({ path: k, message: "is not an accepted field" }));
  const given = (b as { reason?: unknown }).reason;
  if (given !== undefined && given !== null && typeof given !== "string") issues.push({ path: "reason", message: "must be text" });
  if (issues.length) invalid(issues);
  return typeof given === "string" ? given : null;
}

/** An erasure's body: its reason, required (REASON_REQUIRED when missing or blank). */
function readErase(b: unknown): string {
  if (b !== undefined && (b === null || typeof b !== "object" || Array.isArray(b))) invalid([{ path: "", message: "the body must be a JSON object" }]);
  const reason = (b as { reason?: unknown } | undefined)?.reason;
  if (reason === undefined || reason === null || (typeof reason === "string" && reason.trim() === ""))
    throw apiError("REASON_REQUIRED", { message: "A reason is required to erase a customer", details: { field: "reason" } });
  if (typeof reason !== "string") invalid([{ path: "reason", message: "must be text" }]);
  const extra = Object.keys(b as object).filter((k) => k !== "reason");
  if (extra.length) invalid(extra.map((k) => ({ path: k, message: "is not an accepted field" })));
  return reason;
}

export function customerRoutes(kit: ApiKit, deps: CustomerRouteDeps) {
  const repo = deps.repositories.customers;
  const openName = (id: string, sealed: string | null) => (sealed === null ? null : deps.pii.open(sealed, `customer:${id}:name`));

  /**
   * An identity for an active customer (404 first: an unknown or inactive customer is not found, whatever the body):
   * the reader hands the handler the body's check, which runs once the customer is found.
   */
  function readIdentity(b: unknown, c: RouteContext): () => { status: "verified" | "unverified" | "blocked"; persons: Person[] } {
    if (!ID.test(c.params.id)) notFound(c.params.id);
    return () => {
      const issues = validateIdentityBody(b, { today: new Date(c.now).toISOString().slice(0, 10) });
      if (issues.length) invalid(issues);
      return b as { status: "verified" | "unverified" | "blocked"; persons: Person[] };
    };
  }

  async function act(c: RouteContext, id: string, msg: CustomerCommand): Promise<Reply> {
    if (!ID.test(id)) notFound(id);
    const outcome = await askActor(deps.runtime, `customer:${id}`, { ...msg, companyId: c.auth.company.id, environment: c.auth.environment, actor: c.auth.actor });
    const { data, status } = unwrap(outcome);
    return { status, data: maskCustomer(c, data as Record<string, unknown>) };
  }

  function maskCustomer(c: RouteContext, data: Record<string, unknown>) {
    return "name" in data ? { ...data, name: c.pii(data.name as string | null, maskName) } : data;
  }

  function present(c: RouteContext, r: CustomerListItem) {
    return {
      id: r.id,
      externalId: r.externalId,
      name: c.pii(openName(r.id, r.nameSealed), maskName),
      publicKey: r.publicKey,
      environment: r.environment,
      walletCount: r.walletCount,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      deactivatedAt: r.deactivatedAt,
      erasedAt: r.erasedAt,
    };
  }

  /** Customers whose name holds `search`: blind-index candidates, confirmed on the decrypted name. */
  async function nameMatches(companyId: string, env: "test" | "live", search: string): Promise<string[]> {
    const needle = normalizeForSearch(search);
    if (needle === "") return [];
    const grams = nameGrams(deps.nameIndexKey, search);
    // Under three characters there is no trigram to look up: the environment's names are decrypted and scanned.
    const candidates = grams.length === 0 ? await repo.allSealedNames(companyId, env) : await repo.sealedNames(await repo.withAllGrams(companyId, env, grams, NAME_CANDIDATES));
    return candidates
      .filter((r) => r.nameSealed !== null && normalizeForSearch(openName(r.id, r.nameSealed)!).includes(needle))
      .map((r) => r.id);
  }

  return kit.group("/api/v2/customers", (r) =>
    r
      .get(
        "/",
        {
          summary: "List customers, newest first (active only unless includeDeactivated=true)",
          access: read,
          pii: true,
          tags: ["customers"],
          query: { includeDeactivated: q.bool(), search: q.string(200), limit: q.limit(100), cursor: q.cursor() },
        },
        async (c) => {
          const { company, environment, piiView } = c.auth;
          const search = c.query.search;
          const filter = {
            includeDeactivated: c.query.includeDeactivated ?? false,
            externalIdContains: search?.toLowerCase(),
            // Part 1: search matches names only for roles with pii:view.
            nameMatchIds: search !== undefined && piiView ? await nameMatches(company.id, environment, search) : undefined,
          };
          const res = await keysetPageAsync<CustomerListItem>({
            key: deps.cursorKey,
            scope: c.auth,
            list: `customers|${JSON.stringify([filter.includeDeactivated, search ?? null, piiView])}`,
            cursor: c.query.cursor,
            limit: c.query.limit,
            fetch: (after, n) => repo.page(company.id, environment, filter, after as [string, string] | null, n),
            position: (row) => [row.createdAt, row.id],
            total: () => repo.count(company.id, environment, filter),
          });
          return page(res.rows.map((row) => present(c, row)), res.meta);
        },
      )
      .post("/", { summary: "Create a customer", access: { scope: "customers:write", permission: "customers:create" }, body: api.CreateCustomer, read: checked(validateCreateCustomer, 400), pii: true, tags: ["customers"] }, async (c) =>
        act(c, newId("cus", c.now), { type: "create", input: c.body }),
      )
      .post("/:id/deactivate", { summary: "Deactivate a customer", access: write, body: api.DeactivateCustomer, read: readDeactivate, tags: ["customers"] }, async (c) =>
        act(c, c.params.id, { type: "deactivate", reason: c.body }),
      )
      .post("/:id/reactivate", { summary: "Reactivate a deactivated customer", access: write, tags: ["customers"] }, (c) => act(c, c.params.id, { type: "reactivate" }))
      .post("/:id/erase", { summary: "Erase a customer's personal data (irreversible)", access: { scope: "customers:erase", permission: "customers:erase" }, body: api.EraseCustomer, read: readErase, tags: ["customers"] }, async (c) =>
        act(c, c.params.id, { type: "erase", reason: c.body }),
      )
      .put("/:id/travel-rule-identity", { summary: "Set the customer's attested IVMS101 identity (stored encrypted, never returned)", access: write, body: api.SetIdentity, read: readIdentity, tags: ["customers"] }, async (c) => {
        const existing = await repo.get(c.auth.company.id, c.auth.environment, c.params.id);
        if (!existing || existing.status !== "active") notFound(c.params.id);
        const { status, persons } = c.body();
        return act(c, c.params.id, { type: "setIdentity", status, persons });
      }),
  );
}
