// The dashboard's keys and members (Part 1: "managed in the dashboard only"): a signed-in owner's console session
// lists, creates and revokes API keys and invites, re-roles and deactivates members; each an audited action of that
// member and session. The CLI on the host does the same as the way in (src/cli/tenancy.ts).
import { apiError } from "../domain/errors.ts";
import { hashKey } from "../domain/keys.ts";
import { canonicalSetupCode, formatSetupCode, keyIsStale, SETUP_CODE_TTL_MS } from "../domain/members/sign-in.ts";
import { keySecret } from "../domain/members/tenancy.ts";
import type { ApiKey, Member, TenancyRepository, TenancyActor } from "../ports/tenancy.ts";
import type { ActorRuntime } from "../actors/runtime.ts";
import { tenancyAddress, type MemberCommand } from "../actors/tenancy.ts";
import { askActor } from "./outcome.ts";
import * as api from "../api/team.ts";
import type { ScopedAccess } from "./auth.ts";
import { created, invalid, ok, type ApiKit, type RouteContext } from "./kit.ts";

export interface TeamRouteDeps {
  tenancy: TenancyRepository;
  runtime: ActorRuntime;
}

// A session has no scopes (its role decides): the scope named here is documentation only.
const keys: ScopedAccess = { scope: "console:session", permission: "keys:manage", officer: true };
const members: ScopedAccess = { scope: "console:session", permission: "members:manage", officer: true };

const byConsole = (c: RouteContext): TenancyActor => ({ actor: c.auth.actor, via: "console" });

/** What a member command answers. */
type Changed<T> = T;
/** Omit over each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

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
  /**
   * One change, by the company's tenancy actor (src/actors/tenancy.ts), as this member and session. A refusal of the
   * tenancy's rules (unknown scope, role that may not hold the environment) is a 422 with its sentence.
   */
  const command = async <T>(c: RouteContext, cmd: DistributiveOmit<MemberCommand, "companyId" | "by">): Promise<Changed<T>> => {
    const o = await askActor<T>(deps.runtime, tenancyAddress(c.auth.company.id), { ...cmd, companyId: c.auth.company.id, by: byConsole(c) });
    if (!o.ok) invalid([{ path: "", message: o.message ?? o.code }]);
    return o.data;
  };
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
        const { key, keyHash, hint } = keySecret(c.body.environment, crypto.getRandomValues(new Uint8Array(32)));
        const apiKey = await command<ApiKey>(c, { type: "key.create", memberId: m.id, environment: c.body.environment, scopes: c.body.scopes, expiresAt, keyHash, hint });
        return created({ ...presentKey(apiKey, m, c.now), key });
      })
      .delete("/:id", { summary: "Revoke an API key: 401 KEY_REVOKED from its next request", access: keys, tags: ["keys"] }, async (c) => {
        const k = await t.keyById(c.params.id);
        if (!k || k.companyId !== c.auth.company.id) throw apiError("API_KEY_NOT_FOUND", { details: { resource: "ApiKey", id: c.params.id } });
        const row = await command<ApiKey>(c, { type: "key.revoke", id: k.id });
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
        // The member and their setup code in one change: the code's hash only (the code is in this answer only).
        const code = formatSetupCode(crypto.getRandomValues(new Uint8Array(16)));
        const expiresAt = c.now + SETUP_CODE_TTL_MS;
        const withCode = await command<Member>(c, { type: "member.create", email: c.body.email.trim(), role: c.body.role, setupCode: { codeHash: hashKey(canonicalSetupCode(code)), expiresAt } });
        return created({ ...presentMember(withCode, 0), setupCode: code, setupCodeExpiresAt: new Date(expiresAt).toISOString() });
      })
      .patch("/:id", { summary: "Change a member's role or deactivate (status disabled) or reactivate them; either ends their sessions", access: members, body: api.ChangeMember, validationStatus: 422, tags: ["members"] }, async (c) => {
        const m = await memberOf(c, c.params.id);
        const company = c.auth.company.id;
        // The company keeps an active owner: the last one is neither demoted nor deactivated here (the CLI can).
        const losesOwner = m.role === "owner" && m.status === "active" && ((c.body.role !== undefined && c.body.role !== "owner") || c.body.status === "disabled");
        if (losesOwner && (await t.listMembers(company)).filter((x) => x.role === "owner" && x.status === "active").length <= 1)
          throw apiError("CONFLICT", { message: "The company's last active owner cannot be demoted or deactivated; make another owner first" });
        let row = m;
        if (c.body.role !== undefined && c.body.role !== m.role) row = await command<Member>(c, { type: "member.role", email: m.email, role: c.body.role });
        if (c.body.status !== undefined && c.body.status !== m.status) row = await command<Member>(c, { type: "member.status", email: m.email, status: c.body.status });
        return ok(presentMember(row, 0));
      }),
  );
  return [keyRoutes, memberRoutes] as const;
}
