// The actor runtime's store: durable mailbox rows, actor state, dead letters and emitted events, in SQLite.
// Every statement is prepared once and reused (`storage.stmt` caches by text): this is the runtime's hot path.
import type { Storage } from "../types.ts";
import { eventDataWriter } from "../event-data.ts";

import type { DeadLetter, MailboxEvent, MessageRecord, MessageRef, ReplayedDeadLetter, RuntimeStore, StoredState, Tenant } from "../../../ports/runtime-store.ts";

export type { DeadLetter, MailboxEvent, MessageRecord, MessageRef, ReplayedDeadLetter, RuntimeStore, StoredState, Tenant } from "../../../ports/runtime-store.ts";

export interface MessageRow {
  id: number;
  actor: string;
  body: string;
  due_at: number;
  retry_at: number | null;
  attempts: number;
  last_error: string | null;
  reply_to: string | null;
  checkpoints: number;
}

export const toMessage = (r: MessageRow): MessageRecord => ({
  id: r.id,
  actor: r.actor,
  body: r.body,
  dueAt: r.due_at,
  retryAt: r.retry_at,
  attempts: r.attempts,
  lastError: r.last_error,
  replyTo: r.reply_to,
  checkpoints: r.checkpoints ?? 0,
});

/** A dead letter's columns as the lists read them. */
export const DEAD_LETTER_COLUMNS = "id, actor, attempts, last_error, created_at, died_at";

export interface DeadLetterRow {
  id: number;
  actor: string;
  attempts: number;
  last_error: string;
  created_at: number;
  died_at: number;
}

export const toDeadLetter = (r: DeadLetterRow): DeadLetter => ({ id: r.id, actor: r.actor, attempts: r.attempts, lastError: r.last_error, createdAt: r.created_at, diedAt: r.died_at });

/** The SQLite mailbox over an open database (the runtime creates its own, once, at construction). */
export function createMailbox(storage: Storage, o: { compactEvents?: boolean } = {}): RuntimeStore {
  return new Mailbox(storage, o.compactEvents ?? false);
}

export class Mailbox implements RuntimeStore {
  /** `compactEvents`: events.data written compactly (src/adapters/storage/event-data.ts), else as JSON text. */
  /** An event's data as stored (JSON, or compacted): serialised once for consecutive events sharing the object. */
  private readonly stored: (data: unknown) => string | Uint8Array;

  constructor(
    private readonly s: Storage,
    compactEvents = false,
  ) {
    this.stored = eventDataWriter(compactEvents);
  }

  insert(actor: string, body: string, dueAt: number, replyTo: string | null, now: number): Promise<number> {
    return this.s.run(() => {
      const r = this.s
        .stmt("INSERT INTO actor_messages (actor, body, due_at, reply_to, created_at) VALUES (?, ?, ?, ?, ?)")
        .run(actor, body, dueAt, replyTo, now);
      return Number(r.lastInsertRowid);
    });
  }

  get(id: number): Promise<MessageRecord | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT * FROM actor_messages WHERE id = ?").get(id) as MessageRow | null | undefined;
      return r ? toMessage(r) : undefined;
    });
  }

  /** Pending messages with an id above `afterId`, oldest first: startup and pickup of other processes' inserts. */
  pendingAfter(afterId: number, limit: number): Promise<MessageRef[]> {
    return this.s.run(() => {
      return this.s
        .stmt("SELECT id, actor, due_at, retry_at FROM actor_messages WHERE id > ? ORDER BY id LIMIT ?")
        .all(afterId, limit)
        .map((r) => ({ id: r.id as number, actor: r.actor as string, dueAt: r.due_at as number, retryAt: r.retry_at as number | null }));
    });
  }

  markCheckpoint(id: number): Promise<void> {
    return this.s.run(() => {
      this.s.stmt("UPDATE actor_messages SET checkpoints = checkpoints + 1 WHERE id = ?").run(id);
    });
  }

  ack(id: number): Promise<void> {
    return this.s.run(() => {
      this.s.stmt("DELETE FROM actor_messages WHERE id = ?").run(id);
    });
  }

  recordFailure(id: number, attempts: number, error: string, retryAt: number): Promise<void> {
    return this.s.run(() => {
      this.s
        .stmt("UPDATE actor_messages SET attempts = ?, last_error = ?, retry_at = ? WHERE id = ?")
        .run(attempts, error, retryAt, id);
    });
  }

  /** `tenant`: the company and environment the message names, when it names them (the API lists a company's own). */
  bury(row: MessageRecord, attempts: number, error: string, now: number, tenant: Tenant | null = null): Promise<void> {
    return this.s.run(() => {
      this.s
        .stmt(
          "INSERT OR REPLACE INTO actor_dead_letters (id, actor, body, attempts, last_error, created_at, died_at, company_id, environment) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .run(row.id, row.actor, row.body, attempts, error, now, now, tenant?.companyId ?? null, tenant?.environment ?? null);
      this.s.stmt("DELETE FROM actor_messages WHERE id = ?").run(row.id);
    });
  }

  /** One company's and environment's dead letters, newest death first (ties by id), at most `limit`, before `before`. */
  tenantDeadLetters(t: Tenant, limit: number, before: [number, number] | null = null): Promise<DeadLetter[]> {
    return this.s.run(() => {
      const rows = this.s
        .stmt(
          `SELECT ${DEAD_LETTER_COLUMNS} FROM actor_dead_letters WHERE company_id = ? AND environment = ? AND (died_at, id) < (?, ?) ORDER BY died_at DESC, id DESC LIMIT ?`,
        )
        .all(t.companyId, t.environment, before?.[0] ?? Number.MAX_SAFE_INTEGER, before?.[1] ?? Number.MAX_SAFE_INTEGER, limit) as unknown as DeadLetterRow[];
      return rows.map(toDeadLetter);
    });
  }

  /** How many dead letters one company and environment has. */
  tenantDeadLetterCount(t: Tenant): Promise<number> {
    return this.s.run(() => {
      return (this.s.stmt("SELECT count(*) AS n FROM actor_dead_letters WHERE company_id = ? AND environment = ?").get(t.companyId, t.environment) as { n: number }).n;
    });
  }

  /** Dead letters, oldest death first (the body is not read: it is sealed and stays in the database). */
  deadLetters(o: { actorPrefix?: string; limit?: number } = {}): Promise<DeadLetter[]> {
    return this.s.run(() => {
      const rows = this.s
        .stmt(`SELECT ${DEAD_LETTER_COLUMNS} FROM actor_dead_letters WHERE actor >= ? AND actor < ? ORDER BY died_at, id LIMIT ?`)
        .all(o.actorPrefix ?? "", `${o.actorPrefix ?? ""}\uffff`, o.limit ?? 1_000) as unknown as DeadLetterRow[];
      return rows.map(toDeadLetter);
    });
  }

  /**
   * Puts a dead letter back in its actor's mailbox as a new message (due now, attempts from zero, no one waiting for
   * a reply) and removes it from the dead letters, in one transaction. Answers the new message's id and the actor, or
   * null when there is no such dead letter (or, with `tenant`, none about that company and environment).
   */
  replayDeadLetter(id: number, now: number, tenant: Tenant | null = null): Promise<ReplayedDeadLetter | null> {
    return this.s.transaction(async () => this.replayOne(id, now, tenant));
  }

  private replayOne(id: number, now: number, tenant: Tenant | null): ReplayedDeadLetter | null {
    const row = (
      tenant
        ? this.s.stmt("SELECT actor, body FROM actor_dead_letters WHERE id = ? AND company_id = ? AND environment = ?").get(id, tenant.companyId, tenant.environment)
        : this.s.stmt("SELECT actor, body FROM actor_dead_letters WHERE id = ?").get(id)
    ) as { actor: string; body: string } | undefined;
    if (!row) return null;
    const messageId = Number(
      this.s.stmt("INSERT INTO actor_messages (actor, body, due_at, reply_to, created_at) VALUES (?, ?, ?, ?, ?)").run(row.actor, row.body, now, null, now).lastInsertRowid,
    );
    this.s.stmt("DELETE FROM actor_dead_letters WHERE id = ?").run(id);
    return { id, actor: row.actor, messageId };
  }

  /**
   * Replays every dead letter whose actor starts with `actorPrefix` (and, with `tenant`, about that company and
   * environment), oldest death first, each as `replayDeadLetter` does, all in one transaction.
   */
  replayDeadLetters(o: { actorPrefix?: string; tenant?: Tenant | null }, now: number): Promise<ReplayedDeadLetter[]> {
    return this.s.transaction(async () => {
      const ids = o.tenant
        ? (await this.tenantDeadLetters(o.tenant, Number.MAX_SAFE_INTEGER)).filter((d) => d.actor.startsWith(o.actorPrefix ?? "")).map((d) => d.id).reverse()
        : (await this.deadLetters({ actorPrefix: o.actorPrefix, limit: Number.MAX_SAFE_INTEGER })).map((d) => d.id);
      return ids.map((id) => this.replayOne(id, now, o.tenant ?? null)).filter((r): r is ReplayedDeadLetter => r !== null);
    });
  }

  loadState(address: string): Promise<StoredState | undefined> {
    return this.s.run(() => {
      const r = this.s.stmt("SELECT state, last_message_id FROM actor_state WHERE address = ?").get(address) as { state: string; last_message_id: number } | null | undefined;
      return r ? { state: r.state, lastMessageId: r.last_message_id } : undefined;
    });
  }

  saveState(address: string, state: string, lastMessageId: number, now: number): Promise<void> {
    return this.s.run(() => {
      this.s
        .stmt(
          "INSERT INTO actor_state (address, state, last_message_id, updated_at) VALUES (?, ?, ?, ?) " +
            "ON CONFLICT(address) DO UPDATE SET state = excluded.state, last_message_id = excluded.last_message_id, updated_at = excluded.updated_at",
        )
        .run(address, state, lastMessageId, now);
    });
  }

  /** How many states are stored unsealed (plain JSON). */
  plainStateCount(): Promise<number> {
    return this.s.run(() => {
      return (this.s.stmt("SELECT count(*) AS n FROM actor_state WHERE substr(state, 1, 3) <> 'v1:'").get() as { n: number }).n;
    });
  }

  /** Up to `limit` states stored before states were sealed (plain JSON: sealed text starts "v1:"). */
  plainStates(limit: number): Promise<{ address: string; state: string }[]> {
    return this.s.run(() => {
      return this.s.stmt("SELECT address, state FROM actor_state WHERE substr(state, 1, 3) <> 'v1:' LIMIT ?").all(limit) as { address: string; state: string }[];
    });
  }

  /** Replaces a stored state only if it is still `from` (another process may have saved a newer one meanwhile). */
  replaceState(address: string, from: string, to: string): Promise<void> {
    return this.s.run(() => {
      this.s.stmt("UPDATE actor_state SET state = ? WHERE address = ? AND state = ?").run(to, address, from);
    });
  }

  /**
   * Runs `fn` with SQLite's secure_delete on, so the pages it frees are zeroed rather than just unlinked (used when
   * plaintext is replaced by sealed text); a backend without that notion just runs `fn`.
   */
  async withSecureDelete<T>(fn: () => Promise<T>): Promise<T> {
    await this.s.run(() => this.s.client.exec("PRAGMA secure_delete = ON"));
    try {
      return await fn();
    } finally {
      await this.s.run(() => this.s.client.exec("PRAGMA secure_delete = OFF"));
    }
  }

  insertEvent(id: string, e: MailboxEvent, createdAt: string): Promise<number> {
    return this.s.run(() => {
      const r = this.s
        .stmt(
          "INSERT INTO events (id, company_id, environment, type, entity_type, entity_id, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .run(id, e.companyId, e.environment, e.type, e.entityType, e.entityId, this.stored(e.data), createdAt);
      return Number(r.lastInsertRowid);
    });
  }
}
