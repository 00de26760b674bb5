// GET /api/v2/vasps/search: counterparty VASPs of the environment, once each under the latest name (Part 1, VASP search).
import { apiError } from "../domain/errors.ts";
import type { VaspRepository, VaspResult } from "../ports/vasps.ts";
import { ok, type ApiKit } from "./kit.ts";
import { keysetPageAsync } from "./paging.ts";
import { q, type QueryParam } from "./query.ts";
import type { RateLimiter } from "./ratelimit.ts";

export interface VaspRouteDeps {
  repositories: { vasps: VaspRepository };
  cursorKey: Uint8Array;
  limiter: RateLimiter;
}

const MAX_LIMIT = 50;

/** A positive whole number, default 20; over 50 is read as 50 (Part 1). */
const searchLimit: QueryParam<number> & { default: number } = {
  schema: { type: "integer", minimum: 1, default: 20, description: "over 50 is read as 50" } as never,
  default: 20,
  parse: (raw) => (/^\d+$/.test(raw) && Number(raw) >= 1 ? { value: Math.min(Number(raw), MAX_LIMIT) } : { error: "must be a positive whole number" }),
};

export function vaspRoutes(kit: ApiKit, deps: VaspRouteDeps) {
  const directory = deps.repositories.vasps;
  return kit.group("/api/v2/vasps", (r) =>
    r.get(
      "/search",
      {
        summary: "Find counterparty VASPs by ID or any name they have had",
        access: { scope: "transfers:read", permission: "transfers:view" },
        tags: ["vasps"],
        query: { q: q.string(100, 0), limit: searchLimit, cursor: q.cursor() },
      },
      async (c) => {
        const query = (c.query.q ?? "").trim();
        const { company, environment } = c.auth;
        // Only searches with a non-empty q count toward the search limit.
        if (query !== "") deps.limiter.check("vasp_search", `${company.id}:${environment}`);
        if (query === "") {
          if (c.query.cursor !== undefined) throw apiError("INVALID_CURSOR");
          return ok([], { query, count: 0, cursor: null, hasMore: false, limit: c.query.limit });
        }
        const res = await keysetPageAsync<VaspResult>({
          key: deps.cursorKey,
          scope: c.auth,
          list: `vasps|${query.toLowerCase()}`,
          cursor: c.query.cursor,
          limit: c.query.limit,
          fetch: (after, n) => directory.search(company.id, environment, query.toLowerCase(), after as [string, string] | null, n),
          position: (v) => [v.name.toLowerCase(), v.id],
          total: () => 0,
        });
        return ok(res.rows, { query, count: res.rows.length, cursor: res.meta.cursor, hasMore: res.meta.hasMore, limit: c.query.limit });
      },
    ),
  );
}
