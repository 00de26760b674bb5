// The actors' dead letters as a company sees its own (docs/operations.md, "Dead letters"): listed with an audit
// reader's key or session, replayed by an owner's console session. The ID is the company's own (opaque): it says
// nothing of the other companies' messages.
import { Type, type Static } from "@sinclair/typebox";
import { Answer, Iso } from "./common.ts";

export const DeadLetterId = Type.String({ pattern: "^dl_[A-Za-z0-9_-]{22}$", description: "The dead letter's ID in this company and environment" });

export const DeadLetter = Answer({
  id: DeadLetterId,
  actor: Type.String({ description: "The actor the message was for, e.g. customer:cus_…" }),
  attempts: Type.Number(),
  lastError: Type.String(),
  createdAt: Iso,
  diedAt: Iso,
});
export type DeadLetter = Static<typeof DeadLetter>;

/** A dead letter put back in its actor's mailbox: handled as a new message, attempts from zero. */
export const DeadLetterReplayed = Answer({ id: DeadLetterId, actor: Type.String(), replayedAt: Iso });
export type DeadLetterReplayed = Static<typeof DeadLetterReplayed>;

export const DeadLettersReplayed = Answer({ replayed: Type.Array(DeadLetterReplayed) });
export type DeadLettersReplayed = Static<typeof DeadLettersReplayed>;
