// The tenancy actor kind: the one writer of companies, members and API keys. Companies are changed by the host's actor
// (`tenancy:companies`); a company's members and keys by its own (`tenancy:<companyId>`), one command at a time. The
// decision is the domain's (src/domain/members/tenancy.ts); the rows, the ended sessions and the audit entries commit
// with the message, exactly once. The CLI (through src/cli/runtime.ts) and the console's routes (src/http/team.ts)
// send the same commands. A key's plaintext and a setup code never travel in a command: the caller makes them and
// sends their hashes. Sign-in's own bookkeeping (sessions, TOTP steps, failures) is written by the sign-in routes.
import { iso, newId } from "../domain/ids.ts";
import {
  decideCompany,
  decideCompanyStatus,
  decideFeature,
  decideKey,
  decideMember,
  decideMemberRole,
  decideMemberStatus,
  decideRevoke,
  decideSetupCode,
  type KeyRequest,
  type TenancyRefusal,
} from "../domain/members/tenancy.ts";
import type { Environment } from "../domain/types.ts";
import type { Repositories } from "../ports/repositories.ts";
import type { AuditActor } from "../ports/audit.ts";
import type { ApiKey, Company, CompanyStatus, Member, MemberStatus, TenancyActor } from "../ports/tenancy.ts";
import { refuse, type Outcome } from "./outcome.ts";
import type { ActorContext, ActorKind } from "./types.ts";

export const companiesAddress = "tenancy:companies";
export const tenancyAddress = (companyId: string) => `tenancy:${companyId}`;

export type CompanyCommand =
  | { type: "company.create"; slug: string; name?: string }
  | { type: "company.status"; slug: string; status: CompanyStatus }
  | { type: "company.feature"; slug: string; feature: string; enabled: boolean };

/** A member's or key's change in a company, by `by` (the CLI, or a console session). */
export type MemberCommand = { companyId: string; by: TenancyActor } & (
  | { type: "member.create"; email: string; role: string; /** An invitation: a setup code issued with it, in the same unit of work. */ setupCode?: { codeHash: string; expiresAt: number } }
  | { type: "member.status"; email: string; status: MemberStatus }
  | { type: "member.role"; email: string; role: string }
  | { type: "member.setup"; email: string; codeHash: string; expiresAt: number }
  | { type: "member.sign_out"; email: string }
  | ({ type: "key.create"; memberId: string; keyHash: string; hint: string; /** The CLI's key acts for its member when no issuer is named. */ issuedByMember?: boolean } & KeyRequest)
  | { type: "key.revoke"; id: string }
);

export type TenancyMsg = CompanyCommand | MemberCommand;

/** What the commands answer: the record as it is after the change (`sign_out`: how many sessions ended). */
export type TenancyAnswer = Company | Member | ApiKey | { sessionsEnded: number };

export interface TenancyActorDeps {
  repositories: Pick<Repositories, "tenancy" | "audit">;
}

type Ctx = ActorContext<Record<string, never>>;
const BOTH = ["test", "live"] as const;

const refusal = (r: TenancyRefusal) => refuse(r.kind === "not_found" ? "NOT_FOUND" : "VALIDATION_ERROR", r.message);
const noCompany = (slug: string) => refuse("NOT_FOUND", `no company with slug "${slug}"`);

export function tenancyActor(deps: TenancyActorDeps): ActorKind<Record<string, never>, TenancyMsg> {
  const { tenancy, audit } = deps.repositories;

  /** The change's audit entries (one per environment it concerns), inside the handler's unit of work. */
  async function entry(ctx: Ctx, companyId: string, environments: readonly Environment[], actor: AuditActor, action: string, entityType: string, entityId: string, detail?: Record<string, unknown>): Promise<void> {
    for (const environment of environments) await audit.record({ companyId, environment, actor, action, entityType, entityId, ...(detail ? { detail } : {}) }, ctx.now);
  }

  async function company(ctx: Ctx, msg: CompanyCommand): Promise<Outcome<TenancyAnswer>> {
    const at = iso(ctx.now);
    const system: AuditActor = { type: "system" };
    if (msg.type === "company.create") {
      const d = decideCompany(msg.slug, msg.name, (await tenancy.companyBySlug(msg.slug)) !== undefined, newId("cmp", ctx.now), at);
      if (!d.ok) return refusal(d);
      ctx.write(async () => {
        await tenancy.insertCompany(d.record);
        await entry(ctx, d.record.id, BOTH, system, d.action, "Company", d.record.id, d.detail);
      });
      return { ok: true, data: d.record };
    }
    const c = await tenancy.companyBySlug(msg.slug);
    if (!c) return noCompany(msg.slug);
    const d = msg.type === "company.status" ? decideCompanyStatus(c, msg.status, at) : decideFeature(c, msg.feature, msg.enabled, at);
    ctx.write(async () => {
      await tenancy.saveCompany(d.record);
      await entry(ctx, c.id, BOTH, system, d.action, "Company", c.id, d.detail);
    });
    return { ok: true, data: d.record };
  }

  async function member(ctx: Ctx, msg: MemberCommand): Promise<Outcome<TenancyAnswer>> {
    const at = iso(ctx.now);
    const { companyId, by } = msg;
    switch (msg.type) {
      case "member.create": {
        const d = decideMember(companyId, msg.email, msg.role, (await tenancy.memberByEmail(companyId, msg.email)) !== undefined, by.via, newId("mem", ctx.now), at);
        if (!d.ok) return refusal(d);
        const code = msg.setupCode ? decideSetupCode(d.record, d.record.email, msg.setupCode.codeHash, iso(msg.setupCode.expiresAt), by.via, at) : undefined;
        if (code && !code.ok) return refusal(code);
        ctx.write(async () => {
          await tenancy.insertMember(d.record);
          await entry(ctx, companyId, BOTH, by.actor, d.action, "Member", d.record.id, d.detail);
          if (code) {
            await tenancy.saveMember(code.record);
            await entry(ctx, companyId, BOTH, by.actor, code.action, "Member", d.record.id, code.detail);
          }
        });
        return { ok: true, data: code ? code.record : d.record };
      }
      case "member.status":
      case "member.role":
      case "member.setup": {
        const m = await tenancy.memberByEmail(companyId, msg.email);
        const d =
          msg.type === "member.status"
            ? decideMemberStatus(m, msg.email, msg.status, by.via, at)
            : msg.type === "member.role"
              ? decideMemberRole(m, msg.email, msg.role, by.via, at)
              : decideSetupCode(m, msg.email, msg.codeHash, iso(msg.expiresAt), by.via, at);
        if (!d.ok) return refusal(d);
        ctx.write(async () => {
          await tenancy.saveMember(d.record);
          if (d.endsSessions) await tenancy.endMemberSessions(d.record.id, d.endsSessions, ctx.now);
          await entry(ctx, companyId, BOTH, by.actor, d.action, "Member", d.record.id, d.detail);
        });
        return { ok: true, data: d.record };
      }
      case "member.sign_out": {
        const m = await tenancy.memberByEmail(companyId, msg.email);
        if (!m) return refuse("NOT_FOUND", `no member with email ${msg.email}`);
        // The actor is the one writer of members; a sign-in meanwhile is a new session, ended by the next sign-out.
        const n = await tenancy.unendedSessions(m.id);
        ctx.write(async () => {
          await tenancy.endMemberSessions(m.id, "ended_by_cli", ctx.now);
          await entry(ctx, companyId, BOTH, by.actor, "member.signed_out", "Member", m.id, { sessions: n, via: by.via });
        });
        return { ok: true, data: { sessionsEnded: n } };
      }
      case "key.create": {
        const m = await tenancy.memberById(companyId, msg.memberId);
        const d = decideKey(m, msg, { keyHash: msg.keyHash, hint: msg.hint }, by.via, newId("key", ctx.now), ctx.now, iso);
        if (!d.ok) return refusal(d);
        // The key acts for its member; who issued it (the CLI, or a signed-in member's session) is the actor.
        const actor: AuditActor = msg.issuedByMember ? { type: "member", memberId: d.record.memberId } : by.actor;
        ctx.write(async () => {
          await tenancy.insertKey(d.record);
          await entry(ctx, companyId, [d.record.environment], actor, d.action, "ApiKey", d.record.id, d.detail);
        });
        return { ok: true, data: d.record };
      }
      case "key.revoke": {
        const d = decideRevoke(await tenancy.keyById(msg.id), companyId, msg.id, by.via, at);
        if (!d.ok) return refusal(d);
        if (d.changed)
          ctx.write(async () => {
            await tenancy.saveKey(d.record);
            await entry(ctx, companyId, [d.record.environment], by.actor, d.action, "ApiKey", d.record.id, d.detail);
          });
        return { ok: true, data: d.record };
      }
    }
  }

  return {
    kind: "tenancy",
    initialState: () => ({}),
    async handle(ctx, msg) {
      ctx.reply(msg.type.startsWith("company.") ? await company(ctx, msg as CompanyCommand) : await member(ctx, msg as MemberCommand));
    },
  };
}
