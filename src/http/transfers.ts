// /api/v2/transfers: create (priced against the applicable threshold), list, read, act (Part 1, Transfers). Each route
// validates, asks once (or reads once) and presents: create in transfers/create.ts, views in transfers/read.ts, PATCH
// bodies in transfers/patch.ts.
import { apiError } from "../domain/errors.ts";
import { readChecksLimit, readChecksOffset, TRANSFER_STATES, PROTOCOLS } from "../domain/transfers.ts";
import { transferAddress, transferVersion, type TransferAction, type TransferCommand } from "../actors/transfer/commands.ts";
import { sha256Hex } from "../adapters/crypto/hash.ts";
import type { ActionResult } from "../actors/transfer-flow.ts";
import type { Transfer } from "../ports/transfers.ts";
import { thenNow } from "../ports/settled.ts";
import { ok, page, type ApiKit, type RouteContext } from "./kit.ts";
import { keysetPageAsync } from "./paging.ts";
import { q, type QueryParam } from "./query.ts";
import { askActor, unwrap } from "./outcome.ts";
import { createHandler } from "./transfers/create.ts";
import { transferViews } from "./transfers/read.ts";
import { validateAction } from "./transfers/patch.ts";
import type { TransferRouteDeps } from "./transfers/deps.ts";
import * as api from "../api/transfers.ts";

export type { AppliedThreshold, Valuation } from "../domain/transfers/create.ts";

export type { TransferRouteDeps } from "./transfers/deps.ts";

const ID = /^trf_[0-9a-z]{26}$/;

/** Read leniently, never refused (Part 1: out of range is the nearest bound; non-number or 0 is the default). */
const lenient = (read: (raw: string | undefined) => number, def: number): QueryParam<number> & { default: number } => ({
  schema: { type: "integer", default: def } as never,
  default: def,
  parse: (raw) => ({ value: read(raw) }),
});

const statusFilter: QueryParam<string> = q.enumOf(["pending", "approved", "rejected", "all"] as const);

export function transferRoutes(kit: ApiKit, deps: TransferRouteDeps) {
  const repo = deps.repositories.transfers;
  const { listItem, detail, knowProviders } = transferViews(deps);
  const creates = createHandler(deps, (companyId, env, key) => repo.byExternalId(companyId, env, key));

  /** The transfer, or TRANSFER_NOT_FOUND; synchronous when the engine answered at once (src/ports/settled.ts). */
  function find(c: RouteContext, id: string): Transfer | Promise<Transfer> {
    const found = (t: Transfer | undefined): Transfer => {
      if (!t) throw apiError("TRANSFER_NOT_FOUND", { details: { resource: "Transfer", id } });
      return t;
    };
    return ID.test(id) ? thenNow(repo.get(c.auth.company.id, c.auth.environment, id), found) : found(undefined);
  }

  /** One typed command to the transfer's actor, with the tenant and who acts. */
  const ask = <T>(c: RouteContext, id: string, command: TransferCommand) =>
    askActor<T>(deps.runtime, transferAddress(id), { ...command, companyId: c.auth.company.id, environment: c.auth.environment, actor: c.auth.actor });

  /**
   * The action with what the request saw of the transfer (so one that raced another and lost is refused, not applied
   * twice) and its Idempotency-Key, if any (a repeat is answered as the first time).
   */
  async function act(c: RouteContext<any, { t: Transfer; action: TransferAction }>) {
    const { t, action } = c.body;
    const key = idempotencyKey(c);
    const command: TransferCommand = { type: "action", act: action, seen: transferVersion(t), ...(key === null ? {} : { key: { key, hash: sha256Hex(JSON.stringify(action)) } }) };
    const o = (await ask(c, t.id, command)) as ActionResult;
    return ok(unwrap(o).data, o.meta);
  }

  function idempotencyKey(c: RouteContext): string | null {
    const key = c.request.headers.get("idempotency-key");
    if (key === null) return null;
    if (key.trim() === "" || Array.from(key).length > 255)
      throw apiError("VALIDATION_ERROR", { message: "The Idempotency-Key header must be text of 1 to 255 characters", details: { validationErrors: ["Idempotency-Key: must be text of 1 to 255 characters"] } });
    return key;
  }

  return kit.group("/api/v2/transfers", (r) =>
    r
      .get(
        "/",
        {
          summary: "List transfers, newest first",
          access: { scope: "transfers:read", permission: "transfers:view" },
          tags: ["transfers"],
          // The page and its total are read from one snapshot.
          readOnly: true,
          query: {
            direction: q.enumOf(["incoming", "outgoing"] as const),
            state: q.enumOf(TRANSFER_STATES),
            status: statusFilter,
            complianceStatus: q.enumOf(["pending", "approved", "rejected"] as const),
            protocol: q.enumOf(PROTOCOLS),
            search: q.string(200),
            limit: q.limit(100),
            cursor: q.cursor(),
          },
        },
        async (c) => {
          const { company, environment } = c.auth;
          // `status` takes precedence over `complianceStatus`; `all` means no filter (Part 1).
          const status = c.query.status !== undefined ? (c.query.status === "all" ? undefined : c.query.status) : c.query.complianceStatus;
          const f = { direction: c.query.direction, state: c.query.state, status, protocol: c.query.protocol, search: c.query.search };
          const res = await keysetPageAsync<Transfer>({
            key: deps.cursorKey,
            scope: c.auth,
            list: `transfers|${JSON.stringify(f)}`,
            cursor: c.query.cursor,
            limit: c.query.limit,
            fetch: (after, n) => repo.page(company.id, environment, f, after as [string, string] | null, n),
            position: (t) => [t.createdAt, t.id],
            total: () => repo.count(company.id, environment, f),
          });
          await knowProviders(company.id, res.rows.map((t) => t.protocol));
          return page(res.rows.map((t) => listItem(c, t)), res.meta);
        },
      )
      .post("/", { summary: "Create an outgoing transfer (send an Idempotency-Key)", access: { scope: "transfers:write", permission: "transfers:create" }, body: api.CreateTransfer, read: creates.read, tags: ["transfers"] }, creates.create)
      .get(
        "/:id",
        {
          summary: "One transfer in detail",
          access: { scope: "transfers:read", permission: "transfers:view" },
          tags: ["transfers"],
          readOnly: true,
          query: { checksLimit: lenient(readChecksLimit, 50), checksOffset: lenient(readChecksOffset, 0) },
        },
        // Answered in the same turn when the engine answers at once (the embedded engine, its connection free), so
        // the response takes the synchronous path; otherwise awaited.
        (c) => {
          const answer = (t: Transfer) => ok(detail(c, t, c.query.checksLimit, c.query.checksOffset));
          const withProviders = (t: Transfer) => {
            const known = knowProviders(c.auth.company.id, [t.protocol]);
            return known === undefined ? answer(t) : known.then(() => answer(t));
          };
          const t = find(c, c.params.id);
          return t instanceof Promise ? t.then(withProviders) : withProviders(t);
        },
      )
      .patch("/:id", { summary: "Act on a transfer: accept, reject or retry (an Idempotency-Key makes a repeat answer as the first time)", access: { scope: "transfers:write", permission: "transfers:update" }, body: api.PatchTransfer, read: async (b, c) => ({ t: await find(c, c.params.id), action: validateAction(b) }), tags: ["transfers"] }, act),
  );
}
