// The API's answers as the console reads them (transfers, cases, rules, webhooks), and the calls it makes on them.
// Shapes follow the API contract; fields the console does not read are left out. Nothing here imports the server.
import { withQuery, type ApiClient, type ApiResult } from "./client.ts";

export type TransferState = "created" | "queued" | "processing" | "exchanging" | "awaiting_counterparty" | "accepted" | "rejected" | "cancelled" | "completed" | "failed" | "held";
export type Verdict = "pending" | "approved" | "rejected";

/** One screening of a check's raw answer: the vendor's response for one party's name or address. */
export interface Screening {
  party?: string;
  kind?: string;
  status?: string;
  response?: unknown;
}
/** A check's `response` as Caravan stores it: one vendor answer per screened subject (null without pii:view). */
export type CheckResponse = { screenings?: Screening[] } | null;

export interface ListParty {
  name: string | null;
  vaspId: string | null;
  vaspName: string | null;
  address: string | null;
}

export interface TransferListItem {
  id: string;
  direction: "incoming" | "outgoing";
  state: TransferState;
  status: Verdict;
  asset: string;
  amount: string;
  network: string;
  originator: ListParty;
  beneficiary: ListParty;
  compliance?: { checks: { name: string; status: string; response: CheckResponse }[] };
  externalId: string | null;
  createdAt: string;
}

export interface Check {
  id: string;
  integration: string;
  displayName: string;
  type: string;
  stage?: string;
  status: "pending" | "success" | "error" | "skipped";
  response: CheckResponse;
  error?: string | null;
  durationMs: number | null;
}

export interface TransferDetail {
  id: string;
  direction: "incoming" | "outgoing";
  state: TransferState;
  asset: string;
  amount: string;
  network: string;
  originator: { address: string | null; vaspId: string | null; vaspName: string | null };
  beneficiary: { address: string | null; vaspId: string | null; vaspName: string | null };
  status: { ours: string | null; theirs: string | null };
  rejection: { reason: string; details: string | null } | null;
  compliance: { status: Verdict | null; total: number; checks: Check[] };
  cascade?: { provider: string | null; externalId: string | null; attempts: { provider: string; status: string; error: string | null }[] };
  txHash: string | null;
  messages: { type: string; direction: string; timestamp: string }[];
  expiresAt?: string;
  acceptedAt?: string;
  completedAt?: string;
  createdAt: string;
}

export interface MemberRef {
  id: string;
  name: string | null;
  email: string | null;
}

export interface CaseListItem {
  id: string;
  caseNumber: string;
  title: string;
  description: string | null;
  type: string;
  category: string;
  priority: "high" | "medium" | "low";
  status: "open" | "closed";
  resolution: "approved" | "rejected" | null;
  resolutionNote: string | null;
  assigneeId: string | null;
  assignee: MemberRef | null;
  ruleId: string | null;
  transferIds: string[];
  source: string;
  noteCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface CaseDetail extends CaseListItem {
  resolvedAt: string | null;
  createdBy: MemberRef | null;
  resolvedBy: MemberRef | null;
  rule: { id: string; name: string; category: string; action: string; severity: string } | null;
  transfers?: { id: string; externalId: string | null; direction: string; state: string; complianceStatus: string; amount: string; asset: string; network: string; createdAt: string }[];
  notes: { id: string; content: string; author?: MemberRef | null; authorId?: string; createdAt: string }[];
  history: { id: string; action: string; field: string | null; oldValue: string | null; newValue: string | null; user: MemberRef | null; createdAt: string }[];
  historyCount: number;
}

export interface RuleBranch {
  type: "if" | "elseIf" | "else";
  action: string;
  field: string | null;
  query: string | null;
  integrationId: string | null;
  integrationName?: string | null;
  operator: string | null;
  value: string | null;
  subjectMatch?: "any" | "all";
}

export interface RuleDetail {
  id: string;
  name: string;
  category: string;
  action: string;
  severity: string;
  conditions: RuleBranch[] | null;
}

export interface Webhook {
  id: string;
  name: string;
  url: string;
  status: string;
  consecutiveFailures: number;
  deliveryCount: number;
  lastDeliveryAt: string | null;
  lastSuccessAt: string | null;
}

export interface Delivery {
  id: string;
  eventType: string;
  status: "pending" | "sent" | "failed";
  attempts: number;
  maxAttempts: number;
  httpStatus: number | null;
  responseTimeMs: number | null;
  lastError: string | null;
  nextRetryAt: string | null;
  sentAt: string | null;
  createdAt: string;
}

export type TransferAction = { transferId: string; result: "queued" } | { transferId: string; result: "skipped"; reason: string } | null;

export type TransferPatch = { action: "accept"; txHash?: string } | { action: "reject"; status: "rejected"; reason: string; details?: string } | { action: "retry"; reason: string };

/** The calls the console makes, typed; reads go through `useResource` with these paths. */
export const paths = {
  transfers: (q: { state?: string; search?: string; limit?: number }) => withQuery("/api/v2/transfers", q),
  transfer: (id: string) => `/api/v2/transfers/${encodeURIComponent(id)}`,
  cases: (q: { status?: string; assigneeId?: string; search?: string; hasTransfer?: boolean; limit?: number }) => withQuery("/api/v2/cases", q),
  case: (id: string) => `/api/v2/cases/${encodeURIComponent(id)}`,
  rule: (id: string) => `/api/v2/rules/${encodeURIComponent(id)}`,
  deliveries: (hook: string, q: { status?: string; limit?: number }) => withQuery(`/api/v2/webhooks/${encodeURIComponent(hook)}/deliveries`, q),
};

export function patchTransfer(client: ApiClient, id: string, body: TransferPatch): Promise<ApiResult<{ id: string; state: TransferState; status: { ours: string | null; theirs: string | null }; txHash: string | null }>> {
  return client.send("PATCH", paths.transfer(id), body);
}

export function resolveCase(client: ApiClient, id: string, resolution: "approved" | "rejected", note?: string): Promise<ApiResult<CaseDetail>> {
  return client.send("POST", `${paths.case(id)}/resolve`, note ? { resolution, resolutionNote: note } : { resolution });
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
