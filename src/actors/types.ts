// What an actor kind implements and what its handler may do while handling one message.
import type { Storage } from "../adapters/storage/index.ts";
import type { MailboxEvent } from "../adapters/storage/repos/mailbox.ts";

import type { Environment } from "../domain/types.ts";
export type { Environment };

/** A domain event written to the events table in the handler's transaction (the mailbox store's event shape). */
export type ActorEvent = MailboxEvent;

export interface TellOptions {
  /** Absolute due time (ms since epoch): the message is not handled before it. */
  dueAt?: number;
  /** Relative delay from now, in ms. */
  delayMs?: number;
}

export interface ActorContext<S> {
  readonly address: string;
  readonly id: string;
  readonly messageId: number;
  /** The runtime clock's time when handling started (ms since epoch). */
  readonly now: number;
  /** A private copy of the state: mutate it freely; it is saved only when the handler succeeds. */
  state: S;
  /** For reads. Writes go through `write` so they commit with the acknowledgement. */
  readonly storage: Storage;
  tell(to: string, body: unknown, opts?: TellOptions): void;
  emit(event: ActorEvent): void;
  /** Synchronous writes run inside the commit transaction, after the handler returns. */
  write(fn: (storage: Storage) => void): void;
  /** The answer to an `ask`; ignored for a `tell`. */
  reply(value: unknown): void;
  /**
   * Commits the state, writes, messages and events recorded so far, without acknowledging the message:
   * "record what will be sent, then send". A replay of the message after a crash sees `checkpoints` > 0.
   */
  checkpoint(): Promise<void>;
  /** How many checkpoints of this message committed before (0 on a first delivery). */
  readonly checkpoints: number;
}

export interface ActorKind<S = unknown, M = unknown> {
  readonly kind: string;
  initialState(id: string): S;
  handle(ctx: ActorContext<S>, msg: M): void | Promise<void>;
}

export class ActorTimeoutError extends Error {
  override name = "ActorTimeoutError";
}

/** The handler failed every attempt; the message is parked in actor_dead_letters. */
export class ActorDeadLetterError extends Error {
  override name = "ActorDeadLetterError";
}

export class ActorStoppedError extends Error {
  override name = "ActorStoppedError";
}
