// The audit log: who changed what, newest first.
import { Type, type Static } from "@sinclair/typebox";
import { Answer, Iso, Nullable, OneOf } from "./common.ts";

export const AuditEntry = Answer({
  id: Type.String({ pattern: "^aud_[0-9a-z]{26}$" }),
  action: Type.String(),
  entityType: Type.String(),
  entityId: Nullable(Type.String()),
  actor: Answer({ type: Type.String(), memberId: Nullable(Type.String()), apiKeyId: Nullable(Type.String()), sessionId: Type.Optional(Nullable(Type.String())) }),
  detail: Type.Unknown(),
  environment: OneOf(["test", "live"]),
  createdAt: Iso,
});
export type AuditEntry = Static<typeof AuditEntry>;
