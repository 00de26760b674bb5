// GET /api/v2/me: who a key is (company, environment, member, role, scopes, permissions), for clients such as the
// console. Not in the spec: a designed, read-only extension that any valid key may call (no scope needed), never the key.
// It runs the one route pipeline (key checks, suspension, budget, errors) like every other route.
import { ALL_PERMISSIONS } from "../domain/access.ts";
import type { Tenancy } from "../adapters/storage/repos/tenancy.ts";
import { ok, type ApiKit } from "./kit.ts";

export interface MeDeps {
  tenancy: Tenancy;
}

export function meRoutes(kit: ApiKit, deps: MeDeps) {
  return kit.group("/api/v2/me", (r) =>
    r.get(
      "",
      { summary: "The calling key's company, environment, member, role, scopes and permissions (any valid key; an extension)", access: { anyValidKey: true }, tags: ["meta"] },
      (c) => {
        const { auth } = c;
        const member = deps.tenancy.listMembers(auth.company.id).find((m) => m.id === auth.member.id);
        return ok({
          company: { slug: auth.company.slug },
          environment: auth.environment,
          member: { id: auth.member.id, email: member?.email ?? null, role: auth.member.role },
          key: { id: auth.key.id, scopes: [...auth.key.scopes].sort() },
          permissions: ALL_PERMISSIONS.filter((p) => auth.can(p)),
        });
      },
    ),
  );
}
