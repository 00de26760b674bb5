// /api/v2/transfers/:id/information-requests (Part 1 "Information requests (transfers carried by provider_e)"):
// validate, ask the transfer's actor (its provider_e flow keeps the messages), present (person data masked without
// pii:view). Only transfers carried by provider_e, while it is enabled with credentials, take these endpoints.
import { ApiError, apiError, ERRORS, type ErrorCode } from "../domain/errors.ts";
import { maskDeep, readCddAction } from "../domain/provider_e/cdd.ts";
import type { CddView } from "../actors/flows/provider_e-cdd.ts";
import type { ActorRuntime } from "../actors/runtime.ts";
import type { Outcome } from "../actors/outcome.ts";
import type { ProviderRegistry } from "../adapters/providers/registry.ts";
import type { Repositories } from "../ports/repositories.ts";
import type { Transfer } from "../ports/transfers.ts";
import { ok, type ApiKit, type Reply, type RouteContext } from "./kit.ts";
import { askActor } from "./outcome.ts";
import * as api from "../api/transfers.ts";

export interface InformationRequestDeps {
  repositories: Pick<Repositories, "transfers">;
  runtime: ActorRuntime;
  providers: ProviderRegistry;
}

const ID = /^trf_[0-9a-z]{26}$/;

/** Person data in a message: answers, unasked information, drafts and review notes; a request's free text too. */
function maskView(m: CddView): CddView {
  const out: CddView = { ...m };
  if (m.type === "REQUEST_CDD") {
    const c = m.content as Record<string, unknown>;
    out.content = typeof c?.other_cdd_info === "string" ? { ...c, other_cdd_info: "***" } : c;
  } else out.content = maskDeep(m.content);
  if (m.draft) out.draft = { information: maskDeep(m.draft.information) as Record<string, unknown>, missing: m.draft.missing };
  return out;
}

export function informationRequestRoutes(kit: ApiKit, deps: InformationRequestDeps) {
  const repo = deps.repositories.transfers;

  /** A transfer of the environment carried by provider_e (reserved there), with provider_e enabled and configured. */
  async function carried(c: RouteContext, id: string): Promise<Transfer> {
    const t = ID.test(id) ? await repo.get(c.auth.company.id, c.auth.environment, id) : undefined;
    if (!t) throw apiError("TRANSFER_NOT_FOUND", { details: { resource: "Transfer", id } });
    if (t.protocol !== "provider_e" || !t.providerExternalId || !(await deps.providers.context(t.companyId, t.environment, "provider_e", c.now)))
      throw apiError("PROVIDER_E_TRANSFER_NOT_FOUND", { details: { resource: "Transfer", id } });
    return t;
  }

  /** The action and its transfer: the transfer first (404), then the body (INVALID_INFORMATION_REQUEST). */
  async function readAction(b: unknown, c: RouteContext) {
    const t = await carried(c, c.params.id);
    const read = readCddAction(b);
    if (!read.ok) throw apiError("INVALID_INFORMATION_REQUEST", { message: read.issues.map((i) => `${i.path}: ${i.message}`).join("; "), details: { issues: read.issues } });
    return { t, action: read.action };
  }

  async function ask<T>(c: RouteContext, t: Transfer, event: unknown): Promise<{ data: T; status: number }> {
    const o = await askActor<T>(deps.runtime, `transfer:${t.id}`, { type: "providerEvent", provider: "provider_e", event, companyId: c.auth.company.id, environment: c.auth.environment, actor: c.auth.actor });
    if (o.ok) return { data: o.data, status: o.status ?? 200 };
    const providerStatus = (o.details as { providerStatus?: number } | undefined)?.providerStatus;
    // A refusal from the provider: its own code, its status when 400, 404 or 409, else 503 (Part 1).
    if (providerStatus !== undefined || !(o.code in ERRORS)) throw new ApiError(o.code as ErrorCode, o.message ?? `provider_e refused the request (${o.code})`, providerStatus ?? 503);
    throw apiError(o.code, { message: o.message, details: o.details });
  }

  return kit.group("/api/v2/transfers", (r) =>
    r
      .get(
        "/:id/information-requests",
        { summary: "Information requests of a transfer carried by provider_e: pending, and the messages", access: { scope: "transfers:read", permission: "transfers:view" }, tags: ["transfers"] },
        async (c): Promise<Reply> => {
          const t = await carried(c, c.params.id);
          const { data } = await ask<{ pending: boolean; messages: CddView[] }>(c, t, { kind: "cddList" });
          return ok({ pending: data.pending, messages: c.pii(data.messages, (ms) => ms.map(maskView)) });
        },
      )
      .post(
        "/:id/information-requests",
        { summary: "One information-request action: request, reply, post, review or retry", access: { scope: "transfers:write", permission: "transfers:update" }, body: api.InformationRequestAction, read: readAction, tags: ["transfers"] },
        async (c): Promise<Reply> => {
          const { t, action } = c.body;
          const { data } = await ask<Record<string, unknown>>(c, t, { kind: "cddAction", action });
          return { status: 202, data };
        },
      ),
  );
}
