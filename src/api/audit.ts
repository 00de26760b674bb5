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

const B64 = Type.String({ description: "base64 (RFC 4648 §4)" });

/** A signed checkpoint: the tree head and the C2SP signed note it was issued as (`note`, to keep as it is). */
export const AuditCheckpoint = Answer({
  origin: Type.String({ description: "the log's identity: first line of the checkpoint and the signature's key name" }),
  treeSize: Type.Integer({ minimum: 0 }),
  rootHash: B64,
  timestamp: Iso,
  keyId: Type.String({ description: "Caravan's ID of the signing key (hex)" }),
  publicKey: Type.String({ description: "the signing key's Ed25519 public key, base64 of 32 bytes" }),
  verifierKey: Type.String({ description: "<origin>+<signed-note key ID hex>+<base64(0x01 || public key)>, the form note tooling reads" }),
  note: Type.String({ description: "the C2SP tlog-checkpoint signed note, byte for byte" }),
});
export type AuditCheckpoint = Static<typeof AuditCheckpoint>;

export const AuditSigningKey = Answer({
  keyId: Type.String(),
  publicKey: B64,
  verifierKey: Nullable(Type.String()),
  createdAt: Iso,
  retiredAt: Nullable(Iso),
});

export const AuditInclusionProof = Answer({
  entryId: Type.String(),
  leafIndex: Type.Integer({ minimum: 0 }),
  treeSize: Type.Integer({ minimum: 1 }),
  leaf: Type.String({ description: "the entry's canonical encoding (version 1), base64; leafHash is SHA-256(0x00 || leaf)" }),
  leafHash: B64,
  hashes: Type.Array(B64, { description: "RFC 6962 audit path, leaf side first" }),
  checkpoint: AuditCheckpoint,
});

export const AuditConsistencyProof = Answer({
  fromSize: Type.Integer({ minimum: 0 }),
  toSize: Type.Integer({ minimum: 0 }),
  fromRoot: B64,
  toRoot: B64,
  hashes: Type.Array(B64, { description: "RFC 6962 consistency proof" }),
  from: AuditCheckpoint,
  to: AuditCheckpoint,
});

