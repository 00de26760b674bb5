// The dashboard's keys and members (Part 1: "managed in the dashboard only"): a signed-in owner's console session
// lists, creates and revokes API keys and invites, re-roles and deactivates members; each an audited action of that
// member and session. The CLI on the host does the same as the way in (src/cli/tenancy.ts).
import { apiError } from "../domain/errors.ts";
import { hashKey } from "../domain/keys.ts";
import { canonicalSetupCode, formatSetupCode, keyIsStale, SETUP_CODE_TTL_MS } from "../domain/members/sign-in.ts";
import { TenancyError, type ApiKey, type Member, type TenancyRepository, type TenancyActor } from "../ports/tenancy.ts";
import * as api from "../api/team.ts";
import type { ScopedAccess } from "./auth.ts";
import { created, invalid, ok, type ApiKit, type RouteContext } from "./kit.ts";

export interface TeamRouteDeps {
  tenancy: TenancyRepository;
}

// A session has no scopes (its role decides): the scope named here is documentation only.
const keys: ScopedAccess = { scope: "console:session", permission: "keys:manage", officer: true };
const members: ScopedAccess = { scope: "console:session", permission: "members:manage", officer: true };

const byConsole = (c: RouteContext): TenancyActor => ({ actor: c.auth.actor, via: "console" });

/** A refusal of the tenancy core (unknown scope, role that may not hold the environment): 422 with its sentence. */
function refused(e: unknown): never {
  if (e instanceof TenancyError) invalid([{ path: "", message: e.message }]);
  throw e;
}

export function presentKey(k: ApiKey, m: Member | undefined, now: number): api.ApiKeyItem {
  const expired = k.expiresAt !== null && Date.parse(k.expiresAt) <= now;
  return {
    id: k.id,
    hint: k.hint,
    environment: k.environment,
    member: { id: k.memberId, email: m?.email ?? null, role: m?.role ?? null },
    scopes: [...k.scopes],
    createdAt: k.createdAt,
    expiresAt: k.expiresAt,
    lastUsedAt: k.lastUsedAt,
    revokedAt: k.revokedAt,
    status: k.revokedAt ? "revoked" : expired ? "expired" : "active",
    stale: !k.revokedAt && !expired && keyIsStale({ createdAt: k.createdAt, lastUsedAt: k.lastUsedAt }, now),
  };
}

function presentMember(m: Member, openSessions: number): api.MemberItem {
  return { id: m.id, email: m.email, role: m.role, status: m.status, signInReady: m.passphraseHash !== null && m.totpConfirmedAt !== null, openSessions, createdAt: m.createdAt };
}

export function teamRoutes(kit: ApiKit, deps: TeamRouteDeps) {
  const t = deps.tenancy;
  const memberOf = async (c: RouteContext, id: string): Promise<Member> => {
    const m = await t.memberById(c.auth.company.id, id);
    if (!m) throw apiError("MEMBER_NOT_FOUND", { details: { resource: "Member", id } });
    return m;
  };
  const keyRoutes = kit.group("/api/v2/keys", (r) =>
    r
      .get("/", { summary: "The company's API keys, both environments: hint, member, scopes, last use, expiry; `stale` when unused for 90 days (console session, owner)", access: keys, tags: ["keys"] }, async (c) => {
        const ms = new Map((await t.listMembers(c.auth.company.id)).map((m) => [m.id, m]));
        return ok((await t.listKeys(c.auth.company.id)).reverse().map((k) => presentKey(k, ms.get(k.memberId), c.now)));
      })
      .post("/", { summary: "Create an API key for a member (default: yourself); the key is in this answer only", access: keys, body: api.CreateKey, validationStatus: 422, tags: ["keys"] }, async (c) => {
        const memberId = c.body.memberId ?? c.auth.member.id;
        const m = await memberOf(c, memberId);
        let expiresAt: number | null = null;
        if (c.body.expiresAt !== undefined) {
          expiresAt = Date.parse(c.body.expiresAt);
          if (Number.isNaN(expiresAt)) invalid([{ path: "expiresAt", message: "must be an ISO 8601 instant" }]);
          if (expiresAt <= c.now) invalid([{ path: "expiresAt", message: "must be in the future" }]);
        }
        try {
          const { apiKey, key } = await t.createKey({ companyId: c.auth.company.id, memberId: m.id, environment: c.body.environment, scopes: c.body.scopes, expiresAt }, byConsole(c));
          return created({ ...presentKey(apiKey, m, c.now), key });
        } catch (e) {
          refused(e);
        }
      })
      .delete("/:id", { summary: "Revoke an API key: 401 KEY_REVOKED from its next request", access: keys, tags: ["keys"] }, async (c) => {
        const k = await t.keyById(c.params.id);
        if (!k || k.companyId !== c.auth.company.id) throw apiError("API_KEY_NOT_FOUND", { details: { resource: "ApiKey", id: c.params.id } });
        const row = await t.revokeKey(c.auth.company.id, k.id, byConsole(c));
        return ok(presentKey(row, await t.memberById(c.auth.company.id, row.memberId), c.now));
      }),
  );

  const memberRoutes = kit.group("/api/v2/members", (r) =>
    r
      .get("/", { summary: "The company's members: role, status, whether sign-in is set up, open sessions (console session, owner)", access: members, tags: ["members"] }, async (c) => {
        const open = new Map<string, number>();
        for (const s of await t.openSessions(c.auth.company.id, c.now)) open.set(s.memberId, (open.get(s.memberId) ?? 0) + 1);
        return ok((await t.listMembers(c.auth.company.id)).map((m) => presentMember(m, open.get(m.id) ?? 0)));
      })
      .post("/", { summary: "Invite a member (one per email): the one-time setup code is in this answer only, valid 24 hours", access: members, body: api.InviteMember, validationStatus: 422, tags: ["members"] }, async (c) => {
        if (await t.memberByEmail(c.auth.company.id, c.body.email.trim())) throw apiError("MEMBER_EXISTS", { details: { email: c.body.email } });
        try {
          const m = await t.createMember(c.auth.company.id, c.body.email.trim(), c.body.role, byConsole(c));
          const code = formatSetupCode(crypto.getRandomValues(new Uint8Array(16)));
          const expiresAt = c.now + SETUP_CODE_TTL_MS;
          const withCode = await t.issueSetupCode(c.auth.company.id, m.email, hashKey(canonicalSetupCode(code)), expiresAt, byConsole(c));
          return created({ ...presentMember(withCode, 0), setupCode: code, setupCodeExpiresAt: new Date(expiresAt).toISOString() });
        } catch (e) {
          refused(e);
        }
      })
      .patch("/:id", { summary: "Change a member's role or deactivate (status disabled) or reactivate them; either ends their sessions", access: members, body: api.ChangeMember, validationStatus: 422, tags: ["members"] }, async (c) => {
        const m = await memberOf(c, c.params.id);
        const company = c.auth.company.id;
        // The company keeps an active owner: the last one is neither demoted nor deactivated here (the CLI can).
        const losesOwner = m.role === "owner" && m.status === "active" && ((c.body.role !== undefined && c.body.role !== "owner") || c.body.status === "disabled");
        if (losesOwner && (await t.listMembers(company)).filter((x) => x.role === "owner" && x.status === "active").length <= 1)
          throw apiError("CONFLICT", { message: "The company's last active owner cannot be demoted or deactivated; make another owner first" });
        let row = m;
        try {
          if (c.body.role !== undefined && c.body.role !== m.role) row = await t.setMemberRole(company, m.email, c.body.role, byConsole(c));
          if (c.body.status !== undefined && c.body.status !== m.status) row = await t.setMemberStatus(company, m.email, c.body.status, byConsole(c));
        } catch (e) {
          refused(e);
        }
        return ok(presentMember(row, 0));
      }),
  );
  return [keyRoutes, memberRoutes] as const;
}
