// Webhook subscriptions and deliveries on PostgreSQL: the twin of ../../repos/webhooks.ts (same port, same answers;
// the row mappers, filters and the disabling's audit entry are that file's). The subscription counters are kept by the
// triggers of db/migrations-pg/0001_triggers.sql, as SQLite's are by its own. Where SQLite walks deliveries in insert
// order (rowid), this walks them by their key (the ID), as every engine can.
import type { Environment } from "../../../../domain/types.ts";
import type { WebhookStatus } from "../../../../domain/webhooks.ts";
import type { AuditRepository } from "../../../../ports/audit.ts";
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
} from "../../../../ports/webhooks.ts";
import { iso } from "../../../../domain/ids.ts";
import {
  countedDeliveries,
  DELIVERY_COLUMNS,
  deliveryValues,
  deliveryWhere,
  DISABLED_AUTOMATICALLY,
  disabledAutomatically,
  patchColumns,
  toDelivery,
  toWebhook,
  type DeliveryRow,
  type WebhookRow,
} from "../../repos/webhooks.ts";
import type { PgParam, PgSession } from "../session.ts";
import { fromSqlite, newestFirst, walkPages } from "./keyset.ts";
import { numbered } from "../numbered.ts";

/** Deliveries per INSERT statement (19 parameters each: well under PostgreSQL's 65,535). */
const INSERT_BATCH = 500;

export class PgWebhooks implements WebhookRepository {
  /** `audit`: the audit log the automatic disabling writes its entry to (inside the same unit of work). */
  constructor(
    private readonly db: PgSession,
    private readonly audit: () => Pick<AuditRepository, "record">,
  ) {}

  async insert(w: NewWebhook): Promise<void> {
    await this.db.q(
      "INSERT INTO webhooks (id, company_id, environment, name, url, events, status, description, secret_sealed, active_from_seq, created_at, updated_at) " +
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
      [w.id, w.companyId, w.environment, w.name, w.url, JSON.stringify(w.events), w.status, w.description, w.secretSealed, w.activeFromSeq, w.createdAt, w.updatedAt],
    );
  }

  async get(companyId: string, env: Environment, id: string): Promise<Webhook | undefined> {
    const [r] = await this.db.read<WebhookRow>("SELECT * FROM webhooks WHERE id = $1 AND company_id = $2 AND environment = $3", [id, companyId, env]);
    return r ? toWebhook(r) : undefined;
  }

  async byId(id: string): Promise<SealedWebhook | undefined> {
    const [r] = await this.db.read<WebhookRow>("SELECT * FROM webhooks WHERE id = $1", [id]);
    return r ? { ...toWebhook(r), secretSealed: r.secret_sealed } : undefined;
  }

  async all(companyId: string, env: Environment, status?: WebhookStatus): Promise<Webhook[]> {
    const rows = status
      ? await this.db.read<WebhookRow>("SELECT * FROM webhooks WHERE company_id = $1 AND environment = $2 AND status = $3 ORDER BY created_at DESC, id DESC", [companyId, env, status])
      : await this.db.read<WebhookRow>("SELECT * FROM webhooks WHERE company_id = $1 AND environment = $2 ORDER BY created_at DESC, id DESC", [companyId, env]);
    return rows.map(toWebhook);
  }

  async update(id: string, set: WebhookPatch): Promise<void> {
    const { cols, values } = patchColumns(set);
    if (cols.length === 0) return;
    await this.db.q(`UPDATE webhooks SET ${cols.map((c, i) => `${c} = $${i + 1}`).join(", ")} WHERE id = $${cols.length + 1}`, [...(values as PgParam[]), id]);
  }

  async active(companyId: string, env: Environment): Promise<ActiveSubscription[]> {
    const rows = await this.db.read<{ id: string; events: string; active_from_seq: number }>(
      "SELECT id, events, active_from_seq FROM webhooks WHERE company_id = $1 AND environment = $2 AND status = 'active'",
      [companyId, env],
    );
    return rows.map((r) => ({ id: r.id, events: JSON.parse(r.events) as string[], activeFromSeq: r.active_from_seq }));
  }

  async prunableDeliveries(cutoff: string, limit: number): Promise<string[]> {
    const out: string[] = [];
    await walkPages<{ id: string; created_at: string; updated_at: string }>(
      limit,
      (last, size) => this.db.read("SELECT id, created_at, updated_at FROM webhook_deliveries WHERE id > $1 AND status != 'pending' ORDER BY id LIMIT $2", [last?.id ?? "", size]),
      (d) => {
        if (d.created_at >= cutoff) return false;
        if (d.updated_at < cutoff) out.push(d.id);
        return true;
      },
    );
    return out;
  }

  /** The subscription's counters are kept: no trigger runs on delete. */
  async deleteDeliveries(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.q("DELETE FROM webhook_deliveries WHERE id = ANY($1::text[]) AND status != 'pending'", [ids]);
  }

  /** In the order given (the counters' triggers run per row, in that order), a few hundred rows per statement. */
  async insertDeliveries(ds: readonly NewDelivery[]): Promise<void> {
    for (let i = 0; i < ds.length; i += INSERT_BATCH) {
      const batch = ds.slice(i, i + INSERT_BATCH);
      const rows = batch.map((_, r) => `(${Array.from({ length: 19 }, (_, c) => `$${r * 19 + c + 1}`).join(", ")})`);
      await this.db.q(`INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS}) VALUES ${rows.join(", ")}`, batch.flatMap(deliveryValues) as PgParam[]);
    }
  }

  async delivery(webhookId: string, id: string): Promise<Delivery | undefined> {
    const [r] = await this.db.read<DeliveryRow>("SELECT * FROM webhook_deliveries WHERE id = $1 AND webhook_id = $2", [id, webhookId]);
    return r ? toDelivery(r) : undefined;
  }

  async heads(webhookId: string, after: QueuePosition | null, limit: number): Promise<Delivery[]> {
    const sql = "SELECT * FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending'";
    const rows = after
      ? await this.db.read<DeliveryRow>(`${sql} AND (event_seq, id) > ($2::bigint, $3::text) ORDER BY event_seq, id LIMIT $4`, [webhookId, after[0], after[1], limit])
      : await this.db.read<DeliveryRow>(`${sql} ORDER BY event_seq, id LIMIT $2`, [webhookId, limit]);
    return rows.map(toDelivery);
  }

  async recordAttempt(id: string, r: AttemptRecord, now: string): Promise<void> {
    await this.db.q(
      "UPDATE webhook_deliveries SET status = $1, attempts = $2, http_status = $3, response_time_ms = $4, last_error = $5, next_retry_at = $6, sent_at = $7, " +
        "signature = coalesce($8, signature), retry_claim_until = NULL, updated_at = $9 WHERE id = $10",
      [r.status, r.attempts, r.httpStatus, r.responseTimeMs, r.lastError, r.nextRetryAt, r.sentAt, r.signature ?? null, now, id],
    );
  }

  async recordHealth(webhookId: string, outcome: "sent" | "failed" | "retrying", nowMs: number, now: string): Promise<void> {
    if (outcome === "sent") await this.db.q("UPDATE webhooks SET consecutive_failures = 0, failing_since = NULL, last_delivery_at = $1, last_success_at = $1 WHERE id = $2", [now, webhookId]);
    else if (outcome === "failed")
      await this.db.q("UPDATE webhooks SET consecutive_failures = consecutive_failures + 1, failing_since = coalesce(failing_since, $1), last_delivery_at = $2 WHERE id = $3", [nowMs, now, webhookId]);
    else await this.db.q("UPDATE webhooks SET last_delivery_at = $1 WHERE id = $2", [now, webhookId]);
  }

  failPending(webhookId: string, reason: string, now: string): Promise<number> {
    return this.db.run("UPDATE webhook_deliveries SET status = 'failed', last_error = $1, next_retry_at = NULL, updated_at = $2 WHERE webhook_id = $3 AND status = 'pending'", [
      reason,
      now,
      webhookId,
    ]);
  }

  async withDuePending(nowMs: number): Promise<string[]> {
    const rows = await this.db.read<{ webhook_id: string }>(
      "SELECT DISTINCT webhook_id FROM webhook_deliveries WHERE status = 'pending' AND (next_retry_at IS NULL OR next_retry_at <= $1)",
      [nowMs],
    );
    return rows.map((r) => r.webhook_id);
  }

  async claimFailed(webhookId: string, id: string, nowMs: number, untilMs: number): Promise<boolean> {
    const n = await this.db.run(
      "UPDATE webhook_deliveries SET retry_claim_until = $1 WHERE id = $2 AND webhook_id = $3 AND status = 'failed' AND (retry_claim_until IS NULL OR retry_claim_until < $4)",
      [untilMs, id, webhookId, nowMs],
    );
    return n === 1;
  }

  async deliveries(webhookId: string, f: DeliveryFilter, after: ListPosition | null, limit: number): Promise<Delivery[]> {
    return (await newestFirst<DeliveryRow>(this.db, "*", "webhook_deliveries", fromSqlite(deliveryWhere(webhookId, f)), after, limit)).map(toDelivery);
  }

  async countDeliveries(w: Webhook, f: DeliveryFilter): Promise<number> {
    const counted = countedDeliveries(w, f);
    if (counted !== undefined) return counted;
    const where = deliveryWhere(w.id, f);
    const [r] = await this.db.read<{ n: number }>(numbered(`SELECT count(*) AS n FROM webhook_deliveries WHERE ${where.sql}`), where.args as PgParam[]);
    return r!.n;
  }

  /** Inside the caller's unit of work (the one that recorded the failure). */
  async disableAutomatically(w: Webhook, failures: number, nowMs: number): Promise<void> {
    const now = iso(nowMs);
    await this.update(w.id, { status: "disabled", updatedAt: now });
    await this.audit().record(disabledAutomatically(w, failures, nowMs), nowMs);
    await this.failPending(w.id, DISABLED_AUTOMATICALLY, now);
  }
}
