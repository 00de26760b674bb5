// Webhook subscriptions and deliveries (src/ports/webhooks.ts): the SQL of the subscriptions actor, the dispatcher and
// the webhook actors. Rows stay here; the port's records go out. The signing secret is read only by `byId`, sealed.
import type { Environment } from "../../../domain/types.ts";
import type { DeliveryStatus, WebhookStatus } from "../../../domain/webhooks.ts";
import type {
  ActiveSubscription,
  AttemptRecord,
  Delivery,
  DeliveryFilter,
  ListPosition,
  NewDelivery,
  NewWebhook,
  QueuePosition,
  SealedWebhook,
  Webhook,
  WebhookPatch,
  WebhookRepository,
} from "../../../ports/webhooks.ts";
import type { SqlValue, Storage } from "../types.ts";
import { newestFirst, type Where } from "./keyset.ts";
import { AuditLog } from "./audit.ts";
import { iso } from "../../../domain/ids.ts";
import type { RowOf } from "./row.ts";
import type { AuditEntryInput } from "../../../ports/audit.ts";
import type { webhooks as webhooksTable, webhookDeliveries as webhookDeliveriesTable } from "../../../../db/schema/webhooks.ts";

export type WebhookRow = RowOf<typeof webhooksTable>;
export type DeliveryRow = RowOf<typeof webhookDeliveriesTable>;

export const toWebhook = (r: WebhookRow): Webhook => ({
  id: r.id,
  companyId: r.company_id,
  environment: r.environment,
  name: r.name,
  url: r.url,
  events: JSON.parse(r.events) as string[],
  status: r.status,
  description: r.description,
  activeFromSeq: r.active_from_seq,
  consecutiveFailures: r.consecutive_failures,
  failingSince: r.failing_since,
  lastDeliveryAt: r.last_delivery_at,
  lastSuccessAt: r.last_success_at,
  deliveryCount: r.delivery_count,
  sentCount: r.sent_count,
  failedCount: r.failed_count,
  responseMsSum: r.response_ms_sum,
  responseCount: r.response_count,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toDelivery = (r: DeliveryRow): Delivery => ({
  id: r.id,
  webhookId: r.webhook_id,
  companyId: r.company_id,
  environment: r.environment,
  eventId: r.event_id,
  eventSeq: r.event_seq,
  eventType: r.event_type,
  body: r.body,
  signature: r.signature,
  status: r.status,
  attempts: r.attempts,
  maxAttempts: r.max_attempts,
  httpStatus: r.http_status,
  responseTimeMs: r.response_time_ms,
  lastError: r.last_error,
  nextRetryAt: r.next_retry_at,
  sentAt: r.sent_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The columns a change may write, by record field (events as JSON text). */
const PATCH_COLUMNS: Record<keyof WebhookPatch, keyof WebhookRow> = {
  name: "name",
  url: "url",
  events: "events",
  status: "status",
  description: "description",
  secretSealed: "secret_sealed",
  activeFromSeq: "active_from_seq",
  updatedAt: "updated_at",
};

/** A delivery's columns, in the order of `deliveryValues`. */
export const DELIVERY_COLUMNS =
  "id, webhook_id, company_id, environment, event_id, event_seq, event_type, body, signature, status, attempts, max_attempts, " +
  "http_status, response_time_ms, last_error, next_retry_at, sent_at, created_at, updated_at";

const INSERT_DELIVERY = `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS}) VALUES (${Array(19).fill("?").join(", ")})`;

const STATUSES: ReadonlySet<string> = new Set<DeliveryStatus>(["pending", "sent", "failed"]);

/** A subscription's deliveries matching the filter, as a WHERE clause (`?` parameters). */
export function deliveryWhere(webhookId: string, f: DeliveryFilter): Where {
  const where: Where = { sql: "webhook_id = ?", args: [webhookId] };
  // The status as a literal (one of three, checked here): the planner uses a partial index only for a literal.
  if (f.status) {
    if (!STATUSES.has(f.status)) throw new RangeError(`unknown delivery status ${JSON.stringify(f.status)}`);
    where.sql += ` AND status = '${f.status}'`;
  }
  if (f.eventType) (where.sql += " AND event_type = ?"), where.args.push(f.eventType);
  return where;
}

/** A change's columns and values in field order (events as JSON text); the values of fields left undefined are not written. */
export function patchColumns(set: WebhookPatch): { cols: (keyof WebhookRow)[]; values: SqlValue[] } {
  const cols: (keyof WebhookRow)[] = [];
  const values: SqlValue[] = [];
  for (const [k, v] of Object.entries(set) as [keyof WebhookPatch, unknown][]) {
    if (v === undefined) continue;
    cols.push(PATCH_COLUMNS[k]);
    values.push(k === "events" ? JSON.stringify(v) : (v as SqlValue));
  }
  return { cols, values };
}

/** The audit entry of the automatic disabling. */
export function disabledAutomatically(w: Webhook, failures: number, nowMs: number): AuditEntryInput {
  return {
    companyId: w.companyId,
    environment: w.environment,
    actor: { type: "system" },
    action: "webhook.disabled",
    entityType: "webhook",
    entityId: w.id,
    detail: { reason: "automatic", consecutiveFailures: failures, failingSince: iso(w.failingSince ?? nowMs) },
  };
}

/** The reason the automatic disabling gives the pending deliveries it fails. */
export const DISABLED_AUTOMATICALLY = "not sent: the subscription was disabled automatically after repeated failures";

/** How many deliveries match, from the trigger-kept counters (undefined when they cannot say: a filter on the event type). */
export function countedDeliveries(w: Webhook, f: DeliveryFilter): number | undefined {
  if (f.eventType) return undefined;
  if (!f.status) return w.deliveryCount;
  if (f.status === "sent") return w.sentCount;
  if (f.status === "failed") return w.failedCount;
  return w.deliveryCount - w.sentCount - w.failedCount;
}

/** A delivery's values in the order of DELIVERY_COLUMNS. */
export const deliveryValues = (d: NewDelivery): SqlValue[] => [
  d.id,
  d.webhookId,
  d.companyId,
  d.environment,
  d.eventId,
  d.eventSeq,
  d.eventType,
  d.body,
  d.signature,
  d.status,
  d.attempts,
  d.maxAttempts,
  d.httpStatus,
  d.responseTimeMs,
  d.lastError,
  d.nextRetryAt,
  d.sentAt,
  d.createdAt,
  d.updatedAt,
];

export class Webhooks implements WebhookRepository {
  constructor(private readonly s: Storage) {}

  insert(w: NewWebhook): Promise<void> {
    return this.s.run(() => {
      this.s
        .stmt(
          "INSERT INTO webhooks (id, company_id, environment, name, url, events, status, description, secret_sealed, active_from_seq, created_at, updated_at) " +
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .run(w.id, w.companyId, w.environment, w.name, w.url, JSON.stringify(w.events), w.status, w.description, w.secretSealed, w.activeFromSeq, w.createdAt, w.updatedAt);
    });
  }

  get(companyId: string, env: Environment, id: string): Promise<Webhook | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT * FROM webhooks WHERE id = ? AND company_id = ? AND environment = ?").get(id, companyId, env) as WebhookRow | null | undefined;
      return r ? toWebhook(r) : undefined;
    });
  }

  byId(id: string): Promise<SealedWebhook | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT * FROM webhooks WHERE id = ?").get(id) as WebhookRow | null | undefined;
      return r ? { ...toWebhook(r), secretSealed: r.secret_sealed } : undefined;
    });
  }

  /** The environment's subscriptions, newest first (few per environment: lists filter them in memory). */
  all(companyId: string, env: Environment, status?: WebhookStatus): Promise<Webhook[]> {
    return this.s.run(() => {
      const where = status ? " AND status = ?" : "";
      const args: SqlValue[] = status ? [companyId, env, status] : [companyId, env];
      return (this.s.stmt(`SELECT * FROM webhooks WHERE company_id = ? AND environment = ?${where} ORDER BY created_at DESC, id DESC`).all(...args) as unknown as WebhookRow[]).map(toWebhook);
    });
  }

  update(id: string, set: WebhookPatch): Promise<void> {
    return this.s.run(() => this.updateNow(id, set));
  }

  private updateNow(id: string, set: WebhookPatch): void {
    const { cols, values } = patchColumns(set);
    if (cols.length === 0) return;
    this.s.stmt(`UPDATE webhooks SET ${cols.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`).run(...values, id);
  }

  /** The dispatcher's candidates for an event of this company and environment. */
  active(companyId: string, env: Environment): Promise<ActiveSubscription[]> {
    return this.s.run(() =>
      (this.s.stmt("SELECT id, events, active_from_seq FROM webhooks WHERE company_id = ? AND environment = ? AND status = 'active'").all(companyId, env) as unknown as {
        id: string;
        events: string;
        active_from_seq: number;
      }[]).map((r) => ({ id: r.id, events: JSON.parse(r.events) as string[], activeFromSeq: r.active_from_seq })),
    );
  }

  /**
   * Retention: the deliveries that are done (sent or failed) and last changed before `cutoff` (ISO time), among the
   * oldest `limit` deliveries in insert order (rowid), stopping at the first one created at or after `cutoff`. Pending
   * deliveries are never chosen: they are still owed to their subscription.
   */
  prunableDeliveries(cutoff: string, limit: number): Promise<string[]> {
    return this.s.run(() => {
      // In pages, so that a run with nothing to prune (the oldest delivery is young) reads one page, not `limit` rows.
      const page = Math.min(256, limit);
      const out: string[] = [];
      let after = 0;
      for (let seen = 0; seen < limit; ) {
        const rows = this.s.stmt("SELECT rowid AS r, id, created_at, updated_at FROM webhook_deliveries WHERE rowid > ? AND status != 'pending' ORDER BY rowid LIMIT ?").all(after, page) as unknown as {
          r: number;
          id: string;
          created_at: string;
          updated_at: string;
        }[];
        for (const d of rows) {
          if (d.created_at >= cutoff) return out;
          if (d.updated_at < cutoff) out.push(d.id);
          after = d.r;
        }
        seen += rows.length;
        if (rows.length < page) break;
      }
      return out;
    });
  }

  /** Deletes deliveries by ID (the subscription's counters are kept: no trigger runs on delete). */
  deleteDeliveries(ids: readonly string[]): Promise<void> {
    return this.s.run(() => {
      const del = this.s.stmt("DELETE FROM webhook_deliveries WHERE id = ? AND status != 'pending'");
      for (const id of ids) del.run(id);
    });
  }

  insertDeliveries(ds: readonly NewDelivery[]): Promise<void> {
    return this.s.run(() => {
      const ins = this.s.stmt(INSERT_DELIVERY);
      for (const d of ds) ins.run(...deliveryValues(d));
    });
  }

  delivery(webhookId: string, id: string): Promise<Delivery | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT * FROM webhook_deliveries WHERE id = ? AND webhook_id = ?").get(id, webhookId) as DeliveryRow | null | undefined;
      return r ? toDelivery(r) : undefined;
    });
  }

  /** The next `limit` pending deliveries in send order (after `after`): one read for a run of back-to-back sends. */
  heads(webhookId: string, after: QueuePosition | null, limit: number): Promise<Delivery[]> {
    return this.s.run(() => {
      const sql = "SELECT * FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending'";
      const rows = after
        ? this.s.stmt(`${sql} AND (event_seq, id) > (?, ?) ORDER BY event_seq, id LIMIT ?`).all(webhookId, after[0], after[1], limit)
        : this.s.stmt(`${sql} ORDER BY event_seq, id LIMIT ?`).all(webhookId, limit);
      return (rows as unknown as DeliveryRow[]).map(toDelivery);
    });
  }

  recordAttempt(id: string, r: AttemptRecord, now: string): Promise<void> {
    return this.s.run(() => {
      this.s
        .stmt(
          "UPDATE webhook_deliveries SET status = ?, attempts = ?, http_status = ?, response_time_ms = ?, last_error = ?, next_retry_at = ?, sent_at = ?, " +
            "signature = coalesce(?, signature), retry_claim_until = NULL, updated_at = ? WHERE id = ?",
        )
        .run(r.status, r.attempts, r.httpStatus, r.responseTimeMs, r.lastError, r.nextRetryAt, r.sentAt, r.signature ?? null, now, id);
    });
  }

  recordHealth(webhookId: string, outcome: "sent" | "failed" | "retrying", nowMs: number, now: string): Promise<void> {
    return this.s.run(() => {
      if (outcome === "sent")
        this.s.stmt("UPDATE webhooks SET consecutive_failures = 0, failing_since = NULL, last_delivery_at = ?, last_success_at = ? WHERE id = ?").run(now, now, webhookId);
      else if (outcome === "failed")
        this.s
          .stmt("UPDATE webhooks SET consecutive_failures = consecutive_failures + 1, failing_since = coalesce(failing_since, ?), last_delivery_at = ? WHERE id = ?")
          .run(nowMs, now, webhookId);
      else this.s.stmt("UPDATE webhooks SET last_delivery_at = ? WHERE id = ?").run(now, webhookId);
    });
  }

  failPending(webhookId: string, reason: string, now: string): Promise<number> {
    return this.s.run(() => this.failPendingNow(webhookId, reason, now));
  }

  private failPendingNow(webhookId: string, reason: string, now: string): number {
    return this.s
      .stmt("UPDATE webhook_deliveries SET status = 'failed', last_error = ?, next_retry_at = NULL, updated_at = ? WHERE webhook_id = ? AND status = 'pending'")
      .run(reason, now, webhookId).changes;
  }

  withDuePending(nowMs: number): Promise<string[]> {
    return this.s.run(() =>
      (
        this.s
          .stmt("SELECT DISTINCT webhook_id FROM webhook_deliveries WHERE status = 'pending' AND (next_retry_at IS NULL OR next_retry_at <= ?)")
          .all(nowMs) as { webhook_id: string }[]
      ).map((r) => r.webhook_id),
    );
  }

  claimFailed(webhookId: string, id: string, nowMs: number, untilMs: number): Promise<boolean> {
    return this.s.run(
      () =>
        this.s
          .stmt(
            "UPDATE webhook_deliveries SET retry_claim_until = ? WHERE id = ? AND webhook_id = ? AND status = 'failed' AND (retry_claim_until IS NULL OR retry_claim_until < ?)",
          )
          .run(untilMs, id, webhookId, nowMs).changes === 1,
    );
  }

  deliveries(webhookId: string, f: DeliveryFilter, after: ListPosition | null, limit: number): Promise<Delivery[]> {
    return this.s.run(() => newestFirst<DeliveryRow>(this.s, "*", "webhook_deliveries", deliveryWhere(webhookId, f), after, limit).map(toDelivery));
  }

  countDeliveries(w: Webhook, f: DeliveryFilter): Promise<number> {
    return this.s.run(() => {
      const counted = countedDeliveries(w, f);
      if (counted !== undefined) return counted;
      const where = deliveryWhere(w.id, f);
      return Number((this.s.stmt(`SELECT count(*) AS n FROM webhook_deliveries WHERE ${where.sql}`).get(...where.args) as { n: number }).n);
    });
  }

  /**
   * The automatic disabling (docs/webhooks.md): status disabled, a system entry in the audit log, the subscription's
   * pending deliveries end failed. Runs inside the caller's transaction (the one that recorded the failure).
   */
  disableAutomatically(w: Webhook, failures: number, nowMs: number): Promise<void> {
    return this.s.run(() => {
      const now = iso(nowMs);
      this.updateNow(w.id, { status: "disabled", updatedAt: now });
      new AuditLog(this.s).append(disabledAutomatically(w, failures, nowMs), nowMs);
      this.failPendingNow(w.id, DISABLED_AUTOMATICALLY, now);
    });
  }
}
