// The actor runtime's store on PostgreSQL: the twin of ../../repos/mailbox.ts (same port, same answers). Messages,
// actor state, dead letters and the events actors emit; the runtime's group commit calls several of these writes
// inside one `transaction`, and each joins it (the session's unit of work).
//
// IDs and event seqs come from identity sequences, which hand numbers out in the order they are asked for, not in the
// order their transactions commit. Within one process the writer is one connection, so the two orders agree; with
// several processes on one database they could not, and a reader going by "above the last ID seen" (the runtime's
// pickup of other processes' messages, the webhook dispatcher's tail of events) would pass over a row committed late
// with a low number. So an insert of a message or an event first takes one transaction-scoped advisory lock (in the same
// statement: no round trip more), held until its transaction ends: such transactions commit one after the other, in the
// order they drew their numbers, as SQLite's single writer commits them.
import type { DeadLetter, MailboxEvent, MessageRecord, MessageRef, ReplayedDeadLetter, RuntimeStore, StoredState, Tenant } from "../../../../ports/runtime-store.ts";
import { eventDataBytes, eventDataWriter } from "../../event-data.ts";
import { DEAD_LETTER_COLUMNS, toDeadLetter, toMessage, type DeadLetterRow, type MessageRow } from "../../repos/mailbox.ts";
import type { PgSession } from "../session.ts";

/** An arbitrary constant: the advisory lock key of the inserts numbered in commit order ("CARS"). */
export const SEQUENCE_LOCK = 0x43415253;

/** The advisory lock taken before the row is numbered (a CTE with a volatile function runs once, before the INSERT's rows). */
const TURN = `WITH turn AS (SELECT pg_advisory_xact_lock(${SEQUENCE_LOCK}))`;

/**
 * An event's row, numbered in its turn: every insert into `events` goes through it (the actors' events here, the audit
 * checkpoints' in ./audit-tree.ts), or a reader by `seq > cursor` could pass one by. Parameters: id, company, environment,
 * type, entity type, entity ID, data (bytes: ../../event-data.ts), created at.
 */
export const INSERT_EVENT = `${TURN} INSERT INTO events (id, company_id, environment, type, entity_type, entity_id, data, created_at)
       SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::bytea, $8::text FROM turn RETURNING seq`;

const INSERT_MESSAGE = `${TURN} INSERT INTO actor_messages (actor, body, due_at, reply_to, created_at) SELECT $1::text, $2::text, $3::bigint, $4::text, $5::bigint FROM turn RETURNING id`;

/** The PostgreSQL mailbox over a session (the runtime creates its own, once, at construction). */
export function createPgMailbox(db: PgSession, o: { compactEvents?: boolean } = {}): RuntimeStore {
  return new PgMailbox(db, o.compactEvents ?? false);
}

export class PgMailbox implements RuntimeStore {
  /** An event's data as stored (JSON, or compacted): serialised once for consecutive events sharing the object. */
  private readonly stored: (data: unknown) => string | Uint8Array;

  /** `compactEvents`: events.data written compactly (../../event-data.ts), else as the JSON text's bytes. */
  constructor(
    private readonly db: PgSession,
    compactEvents = false,
  ) {
    this.stored = eventDataWriter(compactEvents);
  }

  async insert(actor: string, body: string, dueAt: number, replyTo: string | null, now: number): Promise<number> {
    const [r] = await this.db.q<{ id: number }>(INSERT_MESSAGE, [actor, body, dueAt, replyTo, now]);
    return r!.id;
  }

  async get(id: number): Promise<MessageRecord | undefined> {
    const [r] = await this.db.read<MessageRow>("SELECT * FROM actor_messages WHERE id = $1", [id]);
    return r ? toMessage(r) : undefined;
  }

  async pendingAfter(afterId: number, limit: number): Promise<MessageRef[]> {
    const rows = await this.db.read<{ id: number; actor: string; due_at: number; retry_at: number | null }>(
      "SELECT id, actor, due_at, retry_at FROM actor_messages WHERE id > $1 ORDER BY id LIMIT $2",
      [afterId, limit],
    );
    return rows.map((r) => ({ id: r.id, actor: r.actor, dueAt: r.due_at, retryAt: r.retry_at }));
  }

  async markCheckpoint(id: number): Promise<void> {
    await this.db.q("UPDATE actor_messages SET checkpoints = checkpoints + 1 WHERE id = $1", [id]);
  }

  async ack(id: number): Promise<void> {
    await this.db.q("DELETE FROM actor_messages WHERE id = $1", [id]);
  }

  async recordFailure(id: number, attempts: number, error: string, retryAt: number): Promise<void> {
    await this.db.q("UPDATE actor_messages SET attempts = $1, last_error = $2, retry_at = $3 WHERE id = $4", [attempts, error, retryAt, id]);
  }

  /** One statement: the message leaves the mailbox as it is parked (atomic inside or outside a unit of work). */
  async bury(row: MessageRecord, attempts: number, error: string, now: number, tenant: Tenant | null = null): Promise<void> {
    await this.db.q(
      `WITH gone AS (DELETE FROM actor_messages WHERE id = $1)
       INSERT INTO actor_dead_letters (id, actor, body, attempts, last_error, created_at, died_at, company_id, environment) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (id) DO UPDATE SET actor = excluded.actor, body = excluded.body, attempts = excluded.attempts, last_error = excluded.last_error,
         created_at = excluded.created_at, died_at = excluded.died_at, company_id = excluded.company_id, environment = excluded.environment`,
      [row.id, row.actor, row.body, attempts, error, now, now, tenant?.companyId ?? null, tenant?.environment ?? null],
    );
  }

  async tenantDeadLetters(t: Tenant, limit: number, before: [number, number] | null = null): Promise<DeadLetter[]> {
    const rows = await this.db.read<DeadLetterRow>(
      `SELECT ${DEAD_LETTER_COLUMNS} FROM actor_dead_letters WHERE company_id = $1 AND environment = $2 AND (died_at, id) < ($3::bigint, $4::bigint) ORDER BY died_at DESC, id DESC LIMIT $5`,
      [t.companyId, t.environment, before?.[0] ?? Number.MAX_SAFE_INTEGER, before?.[1] ?? Number.MAX_SAFE_INTEGER, limit],
    );
    return rows.map(toDeadLetter);
  }

  async tenantDeadLetterCount(t: Tenant): Promise<number> {
    const [r] = await this.db.read<{ n: number }>("SELECT count(*) AS n FROM actor_dead_letters WHERE company_id = $1 AND environment = $2", [t.companyId, t.environment]);
    return r!.n;
  }

  async deadLetters(o: { actorPrefix?: string; limit?: number } = {}): Promise<DeadLetter[]> {
    const rows = await this.db.read<DeadLetterRow>(`SELECT ${DEAD_LETTER_COLUMNS} FROM actor_dead_letters WHERE actor >= $1 AND actor < $2 ORDER BY died_at, id LIMIT $3`, [
      o.actorPrefix ?? "",
      `${o.actorPrefix ?? ""}\uffff`,
      o.limit ?? 1_000,
    ]);
    return rows.map(toDeadLetter);
  }

  replayDeadLetter(id: number, now: number, tenant: Tenant | null = null): Promise<ReplayedDeadLetter | null> {
    return this.db.transaction(() => this.replayOne(id, now, tenant));
  }

  /** Inside the caller's unit of work. */
  private async replayOne(id: number, now: number, tenant: Tenant | null): Promise<ReplayedDeadLetter | null> {
    const [row] = tenant
      ? await this.db.q<{ actor: string; body: string }>("SELECT actor, body FROM actor_dead_letters WHERE id = $1 AND company_id = $2 AND environment = $3", [id, tenant.companyId, tenant.environment])
      : await this.db.q<{ actor: string; body: string }>("SELECT actor, body FROM actor_dead_letters WHERE id = $1", [id]);
    if (!row) return null;
    const messageId = await this.insert(row.actor, row.body, now, null, now);
    await this.db.q("DELETE FROM actor_dead_letters WHERE id = $1", [id]);
    return { id, actor: row.actor, messageId };
  }

  replayDeadLetters(o: { actorPrefix?: string; tenant?: Tenant | null }, now: number): Promise<ReplayedDeadLetter[]> {
    return this.db.transaction(async () => {
      const ids = o.tenant
        ? (await this.tenantDeadLetters(o.tenant, Number.MAX_SAFE_INTEGER)).filter((d) => d.actor.startsWith(o.actorPrefix ?? "")).map((d) => d.id).reverse()
        : (await this.deadLetters({ actorPrefix: o.actorPrefix, limit: Number.MAX_SAFE_INTEGER })).map((d) => d.id);
      const out: ReplayedDeadLetter[] = [];
      for (const id of ids) {
        const r = await this.replayOne(id, now, o.tenant ?? null);
        if (r) out.push(r);
      }
      return out;
    });
  }

  async loadState(address: string): Promise<StoredState | undefined> {
    const [r] = await this.db.read<{ state: string; last_message_id: number }>("SELECT state, last_message_id FROM actor_state WHERE address = $1", [address]);
    return r ? { state: r.state, lastMessageId: r.last_message_id } : undefined;
  }

  async saveState(address: string, state: string, lastMessageId: number, now: number): Promise<void> {
    await this.db.q(
      `INSERT INTO actor_state (address, state, last_message_id, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (address) DO UPDATE SET state = excluded.state, last_message_id = excluded.last_message_id, updated_at = excluded.updated_at`,
      [address, state, lastMessageId, now],
    );
  }

  async plainStateCount(): Promise<number> {
    const [r] = await this.db.read<{ n: number }>("SELECT count(*) AS n FROM actor_state WHERE substr(state, 1, 3) <> 'v1:'");
    return r!.n;
  }

  plainStates(limit: number): Promise<{ address: string; state: string }[]> {
    return this.db.read<{ address: string; state: string }>("SELECT address, state FROM actor_state WHERE substr(state, 1, 3) <> 'v1:' LIMIT $1", [limit]);
  }

  async replaceState(address: string, from: string, to: string): Promise<void> {
    await this.db.q("UPDATE actor_state SET state = $1 WHERE address = $2 AND state = $3", [to, address, from]);
  }

  /**
   * PostgreSQL has no secure_delete: a replaced or deleted row stays in its page as a dead tuple until VACUUM reclaims
   * the space (and even then the bytes may linger until the page is rewritten). What stands in for it is that bodies
   * and states are sealed, so what lingers is ciphertext whose key is destroyed on erasure (docs/architecture.md).
   */
  withSecureDelete<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  async insertEvent(id: string, e: MailboxEvent, createdAt: string): Promise<number> {
    const [r] = await this.db.q<{ seq: number }>(INSERT_EVENT, [id, e.companyId, e.environment, e.type, e.entityType, e.entityId, eventDataBytes(this.stored(e.data)), createdAt]);
    return r!.seq;
  }
}
