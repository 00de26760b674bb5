// The API's answers as the console reads them, and the calls it makes on them: every shape comes from the API
// contract (src/api/), the one module of the service the console imports.
import { apiPaths, type CaseDetail, type PatchTransfer, type TransferActed } from "../api/index.ts";
import type { ApiClient, ApiResult } from "./client.ts";

export type {
  AuditCheckpoint,
  AuditEntry,
  CaseDetail,
  CaseHistoryEntry,
  CaseListItem,
  CaseNote,
  Check,
  CheckResponse,
  CustomerListItem,
  CustomerOverview,
  Delivery,
  ListParty,
  Me,
  MemberRef,
  PromotableRule,
  ReportDetail,
  ReportListItem,
  ReportReadiness,
  RuleBranch,
  RuleDetail,
  RuleListItem,
  Screening,
  TransferAction,
  TransferDetail,
  TransferListItem,
  TransferState,
  TransferValuation,
  Verdict,
  Webhook,
  WebhookDetail,
} from "../api/index.ts";

export type TransferPatch = PatchTransfer;

/** The calls the console makes, typed; reads go through `useResource` with these paths. */
export const paths = apiPaths;

export function patchTransfer(client: ApiClient, id: string, body: TransferPatch): Promise<ApiResult<TransferActed>> {
  return client.send("PATCH", paths.transfer(id), body);
}

export function resolveCase(client: ApiClient, id: string, resolution: "approved" | "rejected", note?: string, opts: { approveUnscreened?: boolean } = {}): Promise<ApiResult<CaseDetail>> {
  return client.send("POST", paths.caseResolve(id), { ...(note ? { resolution, resolutionNote: note } : { resolution }), ...(opts.approveUnscreened ? { approveUnscreened: true } : {}) });
}

/**
 * After a resolution: what became of the case's held transfer and whether a suspicion report was drafted, read from
 * the case's history (`transfer_updated` / `transfer_not_updated`, `str_drafted`) as the transfer actor answers.
 * Asks at most `tries` times, `everyMs` apart; null when no outcome was recorded by then.
 */
export async function resolutionOutcome(
  client: ApiClient,
  caseId: string,
  opts: { tries?: number; everyMs?: number; report?: boolean } = {},
): Promise<{ moved: boolean; state: string | null; reportId: string | null } | null> {
  const tries = opts.tries ?? 40;
  // The report's entry is written just after the outcome's: with `report`, look a few more times for it.
  let grace = opts.report ? 8 : 0;
  let seen: { moved: boolean; state: string | null } | null = null;
  for (let i = 0; i < tries; i++) {
    const r = await client.get<CaseDetail>(paths.case(caseId));
    if (r.ok) {
      const h = r.data.history ?? [];
      const outcome = h.find((e) => e.action === "transfer_updated" || e.action === "transfer_not_updated");
      const drafted = h.find((e) => e.action === "str_drafted");
      if (outcome) {
        seen = { moved: outcome.action === "transfer_updated", state: outcome.newValue };
        if (drafted || !seen.moved || grace-- <= 0) return { ...seen, reportId: drafted?.newValue ?? null };
      }
    }
    await new Promise((res) => setTimeout(res, opts.everyMs ?? 250));
  }
  return seen ? { ...seen, reportId: null } : null;
}
