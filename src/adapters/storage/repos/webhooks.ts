// Webhook subscriptions and deliveries: the SQL of the routes, the dispatcher and the webhook actors.
import type { Environment } from "../../../domain/types.ts";
import type { DeliveryStatus, WebhookStatus } from "../../../domain/webhooks.ts";
import type { SqlValue, Storage } from "../types.ts";
import { newestFirst, type Where } from "./keyset.ts";
import { EventLog, type TailEventRow } from "./events.ts";
import { AuditLog } from "./audit.ts";
import { iso } from "../../../domain/ids.ts";
import type { RowOf } from "./row.ts";
import type { webhooks as webhooksTable, webhookDeliveries as webhookDeliveriesTable } from "../../../../db/schema/webhooks.ts";

export type WebhookRow = RowOf<typeof webhooksTable>;

export type DeliveryRow = RowOf<typeof webhookDeliveriesTable>;

export type NewWebhook = Omit<
  WebhookRow,
  "consecutive_failures" | "failing_since" | "last_delivery_at" | "last_success_at" | "delivery_count" | "sent_count" | "failed_count" | "response_ms_sum" | "response_count"
>;
export type NewDelivery = Omit<DeliveryRow, "retry_claim_until">;

/** The result of one attempt, as written to the delivery row. */
export interface AttemptRecord {
  status: DeliveryStatus;
  attempts: number;
  httpStatus: number | null;
  responseTimeMs: number | null;
  lastError: string | null;
  nextRetryAt: number | null;
  sentAt: string | null;
  signature?: string;
}

export interface DeliveryFilter {
  status?: DeliveryStatus;
  eventType?: string;
}

const insertColumns = <T extends object>(row: T) => {
  const cols = Object.keys(row);
  return { cols: cols.join(", "), marks: cols.map(() => "?").join(", "), values: Object.values(row) as SqlValue[] };
};

const STATUSES: ReadonlySet<string> = new Set<DeliveryStatus>(["pending", "sent", "failed"]);

export class Webhooks {
  constructor(private readonly s: Storage) {}

  insert(row: NewWebhook): void {
    const c = insertColumns(row);
    this.s.stmt(`INSERT INTO webhooks (${c.cols}) VALUES (${c.marks})`).run(...c.values);
  }

  get(companyId: string, env: Environment, id: string): WebhookRow | undefined {
    return (this.s.stmt("SELECT * FROM webhooks WHERE id = ? AND company_id = ? AND environment = ?").get(id, companyId, env) ?? undefined) as WebhookRow | undefined;
  }

  byId(id: string): WebhookRow | undefined {
    return (this.s.stmt("SELECT * FROM webhooks WHERE id = ?").get(id) ?? undefined) as WebhookRow | undefined;
  }

  /** The environment's subscriptions, newest first (few per environment: lists filter them in memory). */
  all(companyId: string, env: Environment, status?: WebhookStatus): WebhookRow[] {
    const where = status ? " AND status = ?" : "";
    const args: SqlValue[] = status ? [companyId, env, status] : [companyId, env];
    return this.s.stmt(`SELECT * FROM webhooks WHERE company_id = ? AND environment = ?${where} ORDER BY created_at DESC, id DESC`).all(...args) as unknown as WebhookRow[];
  }

  update(id: string, set: Partial<Omit<WebhookRow, "id">>): void {
    const cols = Object.keys(set);
    if (cols.length === 0) return;
    this.s.stmt(`UPDATE webhooks SET ${cols.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`).run(...(Object.values(set) as SqlValue[]), id);
  }

  /** The dispatcher's candidates for an event of this company and environment. */
  active(companyId: string, env: Environment): { id: string; events: string; active_from_seq: number }[] {
    return this.s.stmt("SELECT id, events, active_from_seq FROM webhooks WHERE company_id = ? AND environment = ? AND status = 'active'").all(companyId, env) as unknown as {
      id: string;
      events: string;
      active_from_seq: number;
    }[];
  }

  /** The newest event's seq (the events table is read through EventLog). */
  lastEventSeq(): number {
    return new EventLog(this.s).newestSeq();
  }

  /**
   * Retention: the rowids of deliveries that are done (sent or failed) and last changed before `cutoff` (ISO time),
   * among the oldest `limit` deliveries in insert order (rowid), stopping at the first one created at or after
   * `cutoff`. Pending deliveries are never chosen: they are still owed to their subscription.
   */
  prunableDeliveries(cutoff: string, limit: number): number[] {
    // In pages, so that a run with nothing to prune (the oldest delivery is young) reads one page, not `limit` rows.
    const page = Math.min(256, limit);
    const out: number[] = [];
    let after = 0;
    for (let seen = 0; seen < limit; ) {
      const rows = this.s.stmt("SELECT rowid AS r, created_at, updated_at FROM webhook_deliveries WHERE rowid > ? AND status != 'pending' ORDER BY rowid LIMIT ?").all(after, page) as unknown as {
        r: number;
        created_at: string;
        updated_at: string;
      }[];
      for (const d of rows) {
        if (d.created_at >= cutoff) return out;
        if (d.updated_at < cutoff) out.push(d.r);
        after = d.r;
      }
      seen += rows.length;
      if (rows.length < page) break;
    }
    return out;
  }

  /** Deletes deliveries by rowid (the subscription's counters are kept: no trigger runs on delete). */
  deleteDeliveries(rowids: number[]): void {
    const del = this.s.stmt("DELETE FROM webhook_deliveries WHERE rowid = ? AND status != 'pending'");
    for (const r of rowids) del.run(r);
  }

  eventsAfter(seq: number, limit: number): TailEventRow[] {
    return new EventLog(this.s).after(seq, limit);
  }

  eventHeadsAfter(seq: number, limit: number): Omit<TailEventRow, "data">[] {
    return new EventLog(this.s).headsAfter(seq, limit);
  }

  insertDelivery(row: NewDelivery): void {
    const c = insertColumns(row);
    this.s.stmt(`INSERT INTO webhook_deliveries (${c.cols}) VALUES (${c.marks})`).run(...c.values);
  }

  delivery(webhookId: string, id: string): DeliveryRow | undefined {
    return (this.s.stmt("SELECT * FROM webhook_deliveries WHERE id = ? AND webhook_id = ?").get(id, webhookId) ?? undefined) as DeliveryRow | undefined;
  }

  /** The subscription's next pending delivery in event order (its queue head), after the position `after` when given. */
  head(webhookId: string, after: [number, string] | null = null): DeliveryRow | undefined {
    const sql = "SELECT * FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending'";
    const row = after
      ? this.s.stmt(`${sql} AND (event_seq, id) > (?, ?) ORDER BY event_seq, id LIMIT 1`).get(webhookId, after[0], after[1])
      : this.s.stmt(`${sql} ORDER BY event_seq, id LIMIT 1`).get(webhookId);
    return (row ?? undefined) as DeliveryRow | undefined;
  }

  /** The next `limit` pending deliveries in send order (after `after`): one read for a run of back-to-back sends. */
  heads(webhookId: string, after: [number, string] | null, limit: number): DeliveryRow[] {
    const sql = "SELECT * FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending'";
    const rows = after
      ? this.s.stmt(`${sql} AND (event_seq, id) > (?, ?) ORDER BY event_seq, id LIMIT ?`).all(webhookId, after[0], after[1], limit)
      : this.s.stmt(`${sql} ORDER BY event_seq, id LIMIT ?`).all(webhookId, limit);
    return rows as unknown as DeliveryRow[];
  }

  recordAttempt(id: string, r: AttemptRecord, now: string): void {
    this.s
      .stmt(
        "UPDATE webhook_deliveries SET status = ?, attempts = ?, http_status = ?, response_time_ms = ?, last_error = ?, next_retry_at = ?, sent_at = ?, " +
          "signature = coalesce(?, signature), retry_claim_until = NULL, updated_at = ? WHERE id = ?",
      )
      .run(r.status, r.attempts, r.httpStatus, r.responseTimeMs, r.lastError, r.nextRetryAt, r.sentAt, r.signature ?? null, now, id);
  }

  /**
   * Subscription health after an attempt: a success clears the run of failures; a delivery that failed for good
   * extends it (`failingSince` keeps the time of its first failure); an attempt that will be retried changes neither.
   */
  recordHealth(webhookId: string, outcome: "sent" | "failed" | "retrying", nowMs: number, now: string): void {
    if (outcome === "sent")
      this.s.stmt("UPDATE webhooks SET consecutive_failures = 0, failing_since = NULL, last_delivery_at = ?, last_success_at = ? WHERE id = ?").run(now, now, webhookId);
    else if (outcome === "failed")
      this.s
        .stmt("UPDATE webhooks SET consecutive_failures = consecutive_failures + 1, failing_since = coalesce(failing_since, ?), last_delivery_at = ? WHERE id = ?")
        .run(nowMs, now, webhookId);
    else this.s.stmt("UPDATE webhooks SET last_delivery_at = ? WHERE id = ?").run(now, webhookId);
  }

  /** Pending deliveries of a subscription that stopped being active end failed, with the reason, without counting against its health. */
  failPending(webhookId: string, reason: string, now: string): number {
    return this.s
      .stmt("UPDATE webhook_deliveries SET status = 'failed', last_error = ?, next_retry_at = NULL, updated_at = ? WHERE webhook_id = ? AND status = 'pending'")
      .run(reason, now, webhookId).changes;
  }

  /** Subscriptions with a pending delivery due by `nowMs` (restart recovery and the recovery sweep). */
  withDuePending(nowMs: number): string[] {
    return (
      this.s
        .stmt("SELECT DISTINCT webhook_id FROM webhook_deliveries WHERE status = 'pending' AND (next_retry_at IS NULL OR next_retry_at <= ?)")
        .all(nowMs) as { webhook_id: string }[]
    ).map((r) => r.webhook_id);
  }

  /** A manual retry takes a failed delivery for itself until `untilMs`; false when it is not failed or already taken. */
  claimFailed(webhookId: string, id: string, nowMs: number, untilMs: number): boolean {
    return (
      this.s
        .stmt(
          "UPDATE webhook_deliveries SET retry_claim_until = ? WHERE id = ? AND webhook_id = ? AND status = 'failed' AND (retry_claim_until IS NULL OR retry_claim_until < ?)",
        )
        .run(untilMs, id, webhookId, nowMs).changes === 1
    );
  }

  private deliveryWhere(webhookId: string, f: DeliveryFilter): Where {
    const where: Where = { sql: "webhook_id = ?", args: [webhookId] };
    // The status as a literal (one of three, checked here): the planner uses a partial index only for a literal.
    if (f.status) {
      if (!STATUSES.has(f.status)) throw new RangeError(`unknown delivery status ${JSON.stringify(f.status)}`);
      where.sql += ` AND status = '${f.status}'`;
    }
    if (f.eventType) (where.sql += " AND event_type = ?"), where.args.push(f.eventType);
    return where;
  }

  deliveries(webhookId: string, f: DeliveryFilter, after: [string, string] | null, limit: number): DeliveryRow[] {
    return newestFirst<DeliveryRow>(this.s, "*", "webhook_deliveries", this.deliveryWhere(webhookId, f), after, limit);
  }

  countDeliveries(w: WebhookRow, f: DeliveryFilter): number {
    // The trigger-kept counters answer the common cases without counting rows.
    if (!f.eventType) {
      if (!f.status) return w.delivery_count;
      if (f.status === "sent") return w.sent_count;
      if (f.status === "failed") return w.failed_count;
      return w.delivery_count - w.sent_count - w.failed_count;
    }
    const where = this.deliveryWhere(w.id, f);
    return Number((this.s.stmt(`SELECT count(*) AS n FROM webhook_deliveries WHERE ${where.sql}`).get(...where.args) as { n: number }).n);
  }

  /**
   * The automatic disabling (docs/webhooks.md): status disabled, a system entry in the audit log, the subscription's
   * pending deliveries end failed. Runs inside the caller's transaction (the one that recorded the failure).
   */
  disableAutomatically(w: WebhookRow, failures: number, nowMs: number): void {
    const now = iso(nowMs);
    this.update(w.id, { status: "disabled", updated_at: now });
    new AuditLog(this.s).append(
      {
        companyId: w.company_id,
        environment: w.environment,
        actor: { type: "system" },
        action: "webhook.disabled",
        entityType: "webhook",
        entityId: w.id,
        detail: { reason: "automatic", consecutiveFailures: failures, failingSince: iso(w.failing_since ?? nowMs) },
      },
      nowMs,
    );
    this.failPending(w.id, "not sent: the subscription was disabled automatically after repeated failures", now);
  }
}
