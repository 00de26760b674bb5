// What an actor kind implements and what its handler may do while handling one message.
import type { UnitOfWork } from "../ports/store.ts";
import type { MailboxEvent } from "../ports/runtime-store.ts";

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
  /**
   * The store's units of work, for a handler that must commit something on its own before its message is
   * acknowledged (a sequence number reserved). Every other write goes through `write`, so it commits with the
   * acknowledgement.
   */
  readonly store: UnitOfWork;
  tell(to: string, body: unknown, opts?: TellOptions): void;
  emit(event: ActorEvent): void;
  /**
   * Store writes, run inside the commit's unit of work after the handler returns (or at its next checkpoint): fn
   * calls repositories and returns their promise; it never calls out.
   */
  write(fn: () => unknown): void;
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
