// The actor runtime's store: durable mailbox messages, actor state, dead letters and the events actors emit, in the
// runtime's terms. Asynchronous like every port (src/ports/store.ts); the writes here run inside the runtime's unit
// of work (a group commit), reads anywhere. The SQLite engine implements it (its mailbox),
// and the storage contract suite holds every engine to it.
import type { Environment } from "../domain/types.ts";
import type { Store } from "./store.ts";

/** An event as the runtime emits it (the actors' `ActorEvent` is this type). */
export interface MailboxEvent {
  companyId: string;
  environment: Environment;
  type: string;
  entityType: string;
  entityId: string;
  data: unknown;
}

/** One message in an actor's mailbox. Times are milliseconds since epoch. */
export interface MessageRecord {
  id: number;
  actor: string;
  /** The body as stored (sealed under the actor's address when the runtime seals). */
  body: string;
  dueAt: number;
  retryAt: number | null;
  attempts: number;
  lastError: string | null;
  /** The ask waiting for the answer, or null for a tell. */
  replyTo: string | null;
  /** Checkpoints committed while handling it (a replay after a crash sees more than 0). */
  checkpoints: number;
}

/** Where a pending message is and when it is due: what the runtime indexes in memory. */
export interface MessageRef {
  id: number;
  actor: string;
  dueAt: number;
  retryAt: number | null;
}

/** The company and environment a message is about. */
export interface Tenant {
  companyId: string;
  environment: Environment;
}

/** A message parked after its last attempt, as an operator sees it (never its body). */
export interface DeadLetter {
  id: number;
  actor: string;
  attempts: number;
  lastError: string;
  /** Milliseconds since epoch. */
  createdAt: number;
  diedAt: number;
}

/** A dead letter put back: its number, its actor, and the new message's number. */
export interface ReplayedDeadLetter {
  id: number;
  actor: string;
  messageId: number;
}

/** An actor's saved state as stored (sealed under `state:<address>` when the runtime seals). */
export interface StoredState {
  state: string;
  lastMessageId: number;
}

export interface RuntimeStore {
  /** A new message; its ID (ascending in insertion order). */
  insert(actor: string, body: string, dueAt: number, replyTo: string | null, now: number): Promise<number>;
  get(id: number): Promise<MessageRecord | undefined>;
  /** Pending messages with an ID above `afterId`, oldest first: startup, and pickup of other processes' inserts. */
  pendingAfter(afterId: number, limit: number): Promise<MessageRef[]>;
  markCheckpoint(id: number): Promise<void>;
  /** The message is handled: it leaves the mailbox. */
  ack(id: number): Promise<void>;
  recordFailure(id: number, attempts: number, error: string, retryAt: number): Promise<void>;
  /** Parks the message as dead (it leaves the mailbox). `tenant`: the company and environment it names, if any. */
  bury(message: MessageRecord, attempts: number, error: string, now: number, tenant?: Tenant | null): Promise<void>;
  /** One company's and environment's dead letters, newest death first (ties by ID), at most `limit`, before `before`. */
  tenantDeadLetters(t: Tenant, limit: number, before?: [diedAt: number, id: number] | null): Promise<DeadLetter[]>;
  tenantDeadLetterCount(t: Tenant): Promise<number>;
  /** Dead letters, oldest death first (their bodies stay in the store). */
  deadLetters(o?: { actorPrefix?: string; limit?: number }): Promise<DeadLetter[]>;
  /**
   * Puts a dead letter back in its actor's mailbox as a new message (due now, attempts from zero, no one waiting for a
   * reply) and removes it from the dead letters, in one unit of work; null when there is no such dead letter (or, with
   * `tenant`, none about that company and environment).
   */
  replayDeadLetter(id: number, now: number, tenant?: Tenant | null): Promise<ReplayedDeadLetter | null>;
  /** Every dead letter whose actor starts with `actorPrefix` (and of `tenant`), oldest death first, in one unit of work. */
  replayDeadLetters(o: { actorPrefix?: string; tenant?: Tenant | null }, now: number): Promise<ReplayedDeadLetter[]>;
  loadState(address: string): Promise<StoredState | undefined>;
  saveState(address: string, state: string, lastMessageId: number, now: number): Promise<void>;
  /** How many states are stored unsealed (written before states were sealed). */
  plainStateCount(): Promise<number>;
  plainStates(limit: number): Promise<{ address: string; state: string }[]>;
  /** Replaces a stored state only if it is still `from` (another process may have saved a newer one meanwhile). */
  replaceState(address: string, from: string, to: string): Promise<void>;
  /** Runs fn so that what it frees leaves no readable trace (SQLite: secure_delete); an engine without the notion just runs it. */
  withSecureDelete<T>(fn: () => Promise<T>): Promise<T>;
  /** A new event; its sequence number (ascending in commit order within one engine). */
  insertEvent(id: string, e: MailboxEvent, createdAt: string): Promise<number>;
}

/** A store that also gives the actor runtime its own store (the engine's mailbox), as the runtime is built on it. */
export interface RuntimeHost extends Store {
  runtimeStore(o?: { compactEvents?: boolean }): RuntimeStore;
}
