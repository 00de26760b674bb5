// The events port: the log of domain events actors emit (one sequence shared by every company and environment), as the
// live stream, the webhook dispatcher, retention and the deliveries list read it. Written by hand; the SQLite engine
// implements it in storage's repos/events.ts, and the storage contract suite holds every engine to it. Events
// are written by the actor runtime only (src/ports/runtime-store.ts, insertEvent); here they are read, and pruned by
// the dispatcher's retention run inside its unit of work. Every read is one call for a whole page: a reader of many
// events (the stream's fan-out to its clients) costs one promise per page, never one per event.
import type { Environment } from "../domain/types.ts";

/** An event as a tenant sees it. */
export interface EventRecord {
  /** Its place in the shared sequence (ascending in commit order). */
  seq: number;
  type: string;
  /**
   * Its data as the JSON text it was written as. Text, not parsed: the tail reads every company's events and most
   * readers pass most of them over (no stream client, no subscriber), so the one reader that uses an event parses it.
   */
  dataJson: string;
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
}

/** An event of the tail (every company and environment): with its ID and the tenant it belongs to. */
export interface TailEvent extends EventRecord {
  id: string;
  companyId: string;
  environment: Environment;
}

/** A tail event without its data: where it belongs, to see who subscribes before reading it. */
export type EventHead = Omit<TailEvent, "dataJson">;

/** What an event concerns: the entity it was recorded for (a transfer, a case, the audit log) and its ID. */
export interface EventEntity {
  entityType: string;
  entityId: string;
}

export interface EventRepository {
  /** The newest event's seq (all companies), 0 when there has never been one; a pruned log still counts the last seq handed out. */
  newestSeq(): Promise<number>;
  /** Every event with a seq up to this one was removed by retention (0: none ever was). */
  prunedThrough(): Promise<number>;
  /**
   * The highest seq X such that every event after `from` up to X was committed before `cutoff` (ISO time) and has
   * seq ≤ `upTo`, looking at `limit` events at most; `from` when there is none (a prefix of the sequence).
   */
  prunableThrough(from: number, upTo: number, cutoff: string, limit: number): Promise<number>;
  /** Removes the events after `from` up to `through` and records `through` as pruned (inside the caller's unit of work); how many went. */
  pruneThrough(from: number, through: number): Promise<number>;
  /** At most `limit` events of every company and environment with `seq > after`, in seq order. */
  after(after: number, limit: number): Promise<TailEvent[]>;
  /** The same events as `after`, without their data. */
  headsAfter(after: number, limit: number): Promise<EventHead[]>;
  /** At most `limit` events of one company and environment with `after < seq <= upTo`, in seq order. */
  tenantPage(companyId: string, env: Environment, after: number, upTo: number, limit: number): Promise<EventRecord[]>;
  /** The entity each of these events (by seq) concerns, for one company and environment; an event removed by retention is absent. */
  entities(companyId: string, env: Environment, seqs: readonly number[]): Promise<Map<number, EventEntity>>;
}
