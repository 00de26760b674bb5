// /api/v2/dead-letters (designed here): the messages about the caller's company and environment that the actors
// parked after their last attempt (docs/architecture.md says what is buried and when), newest first, for the console
// and any client watching for work that did not finish; and their replay, an operator's power: an owner's console
// session only (an API key gets OFFICER_SESSION_REQUIRED), audited with the member and the session. A replay is the
// CLI's (`caravan dead-letters replay`, the same Mailbox methods): the message goes back to its actor's mailbox as a
// new one. Neither the sealed body nor the mailbox number (a count over every company) is shown: the ID is the
// number enciphered for the company and environment (EventIds under its own subkey).
import { apiError } from "../domain/errors.ts";
import { iso } from "../domain/ids.ts";
import type { EventIds } from "../adapters/crypto/event-ids.ts";
import type { UnitOfWork } from "../ports/store.ts";
import type { AuditRepository } from "../ports/audit.ts";
import type { ReplayedDeadLetter, RuntimeStore, Tenant } from "../ports/runtime-store.ts";
import type { ScopedAccess } from "./auth.ts";
import { ok, page, type ApiKit, type RouteContext } from "./kit.ts";
import { q } from "./query.ts";

const access = { scope: "audit:read", permission: "audit:view" } as const;
// A session has no scopes (its role decides): the scope named here is documentation only, as for keys and members.
const replayAccess: ScopedAccess = { scope: "console:session", permission: "dead-letters:replay", officer: true };

export interface DeadLetterRouteDeps {
  readonly runtime: {
    readonly mailbox: Pick<RuntimeStore, "tenantDeadLetters" | "tenantDeadLetterCount" | "replayDeadLetter" | "replayDeadLetters">;
    noticeInserts(): Promise<void>;
  };
  readonly storage: UnitOfWork;
  readonly repositories: { readonly audit: Pick<AuditRepository, "record"> };
  readonly deadLetterIds: EventIds;
}

const PREFIX = "dl_";

export function deadLetterRoutes(kit: ApiKit, deps: DeadLetterRouteDeps) {
  const mailbox = deps.runtime.mailbox;
  const tenantOf = (c: RouteContext): Tenant => ({ companyId: c.auth.company.id, environment: c.auth.environment });
  const idOf = (t: Tenant, n: number) => PREFIX + deps.deadLetterIds.encode(t.companyId, t.environment, n);
  const numberOf = (t: Tenant, id: string) => (id.startsWith(PREFIX) ? deps.deadLetterIds.decode(t.companyId, t.environment, id.slice(PREFIX.length)) : null);

  /** Audits each replayed letter as the calling member's, in the replay's transaction, and wakes the runtime after. */
  const replayed = async (c: RouteContext, t: Tenant, replay: () => Promise<ReplayedDeadLetter[]>) => {
    const done = await deps.storage.transaction(async () => {
      const rs = await replay();
      for (const r of rs)
        await deps.repositories.audit.record(
          { companyId: t.companyId, environment: t.environment, actor: c.auth.actor, action: "dead_letter.replayed", entityType: "DeadLetter", entityId: idOf(t, r.id), detail: { actor: r.actor, via: "console" } },
          c.now,
        );
      return rs;
    });
    if (done.length > 0) await deps.runtime.noticeInserts();
    return done.map((r) => ({ id: idOf(t, r.id), actor: r.actor, replayedAt: iso(c.now) }));
  };

  return kit.group("/api/v2/dead-letters", (r) =>
    r
      .get(
        "/",
        {
          summary: "Messages about the caller's environment that failed their last attempt (newest first): ID, actor, attempts, last error, when",
          access,
          tags: ["audit"],
          readOnly: true,
          query: { limit: q.limit(200) },
        },
        async (c) => {
          const tenant = tenantOf(c);
          const rows = await mailbox.tenantDeadLetters(tenant, c.query.limit);
          const total = await mailbox.tenantDeadLetterCount(tenant);
          const data = rows.map((d) => ({ id: idOf(tenant, d.id), actor: d.actor, attempts: d.attempts, lastError: d.lastError, createdAt: iso(d.createdAt), diedAt: iso(d.diedAt) }));
          return page(data, { cursor: null, hasMore: total > rows.length, total, limit: c.query.limit });
        },
      )
      .post(
        "/replay",
        { summary: "Operator (an owner's console session, not an API key): put every dead letter of the caller's environment back in its actor's mailbox; each audited", access: replayAccess, tags: ["audit", "operator"] },
        async (c) => {
          const tenant = tenantOf(c);
          return ok({ replayed: await replayed(c, tenant, () => mailbox.replayDeadLetters({ tenant }, c.now)) });
        },
      )
      .post(
        "/:id/replay",
        { summary: "Operator (an owner's console session, not an API key): put one dead letter back in its actor's mailbox, handled as a new message; audited", access: replayAccess, tags: ["audit", "operator"] },
        async (c) => {
          const tenant = tenantOf(c);
          const n = numberOf(tenant, c.params.id);
          const [one] = await replayed(c, tenant, async () => {
            const r = n === null ? null : await mailbox.replayDeadLetter(n, c.now, tenant);
            return r ? [r] : [];
          });
          if (!one) throw apiError("DEAD_LETTER_NOT_FOUND", { details: { resource: "DeadLetter", id: c.params.id } });
          return ok(one);
        },
      ),
  );
}
