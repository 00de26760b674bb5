// GET /api/v2/me: who a key is (company, environment, member, role, scopes, permissions), for clients such as the
// console. Not in the spec: a designed, read-only extension that any valid key may call (no scope needed), never the key.
// It runs the one route pipeline (key checks, suspension, budget, errors) like every other route.
import { ALL_PERMISSIONS } from "../domain/access.ts";
import { ok, type ApiKit } from "./kit.ts";

/** Needs nothing but the kit: the member's email comes with the key (`c.auth.member`). */
export function meRoutes(kit: ApiKit) {
  return kit.group("/api/v2/me", (r) =>
    r.get(
      "",
      { summary: "The calling key's company, environment, member, role, scopes and permissions (any valid key; an extension)", access: { anyValidKey: true }, tags: ["meta"] },
      (c) => {
        const { auth } = c;
        return ok({
          company: { slug: auth.company.slug },
          environment: auth.environment,
          member: { id: auth.member.id, email: auth.member.email, role: auth.member.role },
          key: { id: auth.key.id, scopes: [...auth.key.scopes].sort() },
          permissions: ALL_PERMISSIONS.filter((p) => auth.can(p)),
        });
      },
    ),
  );
}
