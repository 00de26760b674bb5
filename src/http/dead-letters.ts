// GET /api/v2/dead-letters (designed here): the messages about the key's company and environment that the actors
// parked after their last attempt (docs/architecture.md says what is buried and when), newest first, for the console
// and any client watching for work that did not finish. Read like the audit log; replay is the operator's
// (`caravan dead-letters replay`). Neither the sealed body nor the mailbox number (a count over every company) is shown.
import { iso } from "../domain/ids.ts";
import type { MailboxStore } from "../adapters/storage/repos/mailbox.ts";
import { page, type ApiKit } from "./kit.ts";
import { q } from "./query.ts";

const access = { scope: "audit:read", permission: "audit:view" } as const;

export interface DeadLetterRouteDeps {
  readonly runtime: { readonly mailbox: Pick<MailboxStore, "tenantDeadLetters" | "tenantDeadLetterCount"> };
}

export function deadLetterRoutes(kit: ApiKit, deps: DeadLetterRouteDeps) {
  const mailbox = deps.runtime.mailbox;
  return kit.group("/api/v2/dead-letters", (r) =>
    r.get(
      "/",
      {
        summary: "Messages about the key's environment that failed their last attempt (newest first): actor, attempts, last error, when",
        access,
        tags: ["audit"],
        readOnly: true,
        query: { limit: q.limit(200) },
      },
      ({ auth, query }) => {
        const tenant = { companyId: auth.company.id, environment: auth.environment };
        const rows = mailbox.tenantDeadLetters(tenant, query.limit);
        const total = mailbox.tenantDeadLetterCount(tenant);
        const data = rows.map((d) => ({ actor: d.actor, attempts: d.attempts, lastError: d.lastError, createdAt: iso(d.createdAt), diedAt: iso(d.diedAt) }));
        return page(data, { cursor: null, hasMore: total > rows.length, total, limit: query.limit });
      },
    ),
  );
}
