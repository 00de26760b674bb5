// The API's paths as a client builds them, with their query parameters.
export type QueryValue = string | number | boolean | undefined | null;

export function withQuery(path: string, query?: Record<string, QueryValue>): string {
  if (!query) return path;
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

const at = (base: string, id: string) => `${base}/${encodeURIComponent(id)}`;

export const apiPaths = {
  me: () => "/api/v2/me",
  transfers: (q: { state?: string; search?: string; limit?: number } = {}) => withQuery("/api/v2/transfers", q),
  transfer: (id: string) => at("/api/v2/transfers", id),
  transferValuation: (id: string) => `${at("/api/v2/transfers", id)}/valuation`,
  cases: (q: { status?: string; assigneeId?: string; search?: string; hasTransfer?: boolean; limit?: number } = {}) => withQuery("/api/v2/cases", q),
  case: (id: string) => at("/api/v2/cases", id),
  caseResolve: (id: string) => `${at("/api/v2/cases", id)}/resolve`,
  customers: (q: { search?: string; limit?: number } = {}) => withQuery("/api/v2/customers", q),
  customerOverview: (id: string) => `${at("/api/v2/customers", id)}/overview`,
  rules: (q: { limit?: number } = {}) => withQuery("/api/v2/rules", q),
  promotableRules: (q: { limit?: number } = {}) => withQuery("/api/v2/rules/promotable", q),
  rule: (id: string) => at("/api/v2/rules", id),
  rulePromote: (id: string) => `${at("/api/v2/rules", id)}/promote`,
  webhooks: (q: { limit?: number } = {}) => withQuery("/api/v2/webhooks", q),
  webhook: (id: string) => at("/api/v2/webhooks", id),
  deliveries: (hook: string, q: { status?: string; limit?: number } = {}) => withQuery(`${at("/api/v2/webhooks", hook)}/deliveries`, q),
  reports: (q: { status?: string; limit?: number } = {}) => withQuery("/api/v2/reports", q),
  report: (id: string) => at("/api/v2/reports", id),
  reportReadiness: (id: string) => `${at("/api/v2/reports", id)}/readiness`,
  reportGoaml: (id: string) => `${at("/api/v2/reports", id)}/goaml`,
  auditLog: (q: { entityType?: string; entityId?: string; memberId?: string; limit?: number } = {}) => withQuery("/api/v2/audit-log", q),
  auditCheckpoint: () => "/api/v2/audit-log/checkpoints/latest",
  eventStream: () => "/api/v2/events/stream",
  sessions: () => "/api/v2/sessions",
  sessionCurrent: () => "/api/v2/sessions/current",
  sessionSetup: () => "/api/v2/sessions/setup",
  sessionSetupConfirm: () => "/api/v2/sessions/setup/confirm",
  keys: () => "/api/v2/keys",
  key: (id: string) => at("/api/v2/keys", id),
  members: () => "/api/v2/members",
  member: (id: string) => at("/api/v2/members", id),
  deadLetters: (q: { limit?: number } = {}) => withQuery("/api/v2/dead-letters", q),
  deadLetterReplay: (id: string) => `${at("/api/v2/dead-letters", id)}/replay`,
  deadLettersReplay: () => "/api/v2/dead-letters/replay",
};
