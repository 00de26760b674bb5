// Answers to asks that crossed nodes (docs/architecture.md#several-nodes): when the node holding an actor answers an ask
// another node made, the answer is a row for the asking node, written in the transaction that acknowledges the message
// and taken (read and removed) by the asker. Only PostgreSQL has it: on SQLite one process holds every actor, and its
// answers never leave memory.

/** One answer waiting for its asker. Times are milliseconds since epoch. */
export interface ReplyRecord {
  /** The ask's token (`ask_…@<node>`): the asker's pending ask. */
  token: string;
  /** The asking node (the token's part after `@`). */
  node: string;
  /**
   * The answer as stored: the value, or the error's message and fields, as JSON text, sealed under `reply:<token>`
   * when the runtime seals (answers carry personal data, as message bodies do).
   */
  body: string;
  /** null for a value; the error's class (ActorDeadLetterError, StorageUnavailableError, …) for a refusal. */
  errorClass: string | null;
  /** The error's code where it has one (a store fault's class), else null. */
  errorCode: string | null;
  createdAt: number;
}

export interface ReplyStore {
  /**
   * Records an answer, inside the caller's unit of work (the runtime writes it with the message's acknowledgement). A
   * token answered already keeps its first answer: a second write of the same token changes nothing.
   */
  put(r: ReplyRecord): Promise<void>;
  /** Removes and answers up to `limit` answers waiting for `node`, oldest first. */
  take(node: string, limit: number): Promise<ReplyRecord[]>;
  /** Removes answers written before `before` (their askers timed out or are gone); answers how many. */
  sweep(before: number): Promise<number>;
  /**
   * Inside the caller's unit of work: wakes the nodes to a message that a process which is no node (the CLI) inserted,
   * naming it (`sender`), sent on commit. A node alone ignores the hints of its own inserts, never one with a name.
   */
  hintMailbox(sender: string): Promise<void>;
}
