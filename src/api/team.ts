// Members, their console sessions and the company's API keys: the dashboard's own routes (docs/api.md, "Keys and
// sessions"). Signing in is by passphrase and a TOTP code; everything else needs a member's session.
import { Type, type Static } from "@sinclair/typebox";
import { Answer, Iso, Nullable, OneOf } from "./common.ts";

const Email = Type.String({ minLength: 3, maxLength: 254 });
const Passphrase = Type.String({ minLength: 12, maxLength: 1024, description: "At least 12 characters" });
const Code = Type.String({ minLength: 1, maxLength: 16, description: "The 6-digit code of the authenticator app" });
const SetupCode = Type.String({ minLength: 1, maxLength: 40, description: "The one-time code the CLI printed (members setup) or an invitation showed" });
const Environment = OneOf(["test", "live"]);
const Role = OneOf(["owner", "compliance_officer", "analyst", "developer"]);

export const SignIn = Type.Object({ email: Email, passphrase: Type.String({ minLength: 1, maxLength: 1024 }), code: Code, environment: Type.Optional(Environment) }, { additionalProperties: false });
export type SignIn = Static<typeof SignIn>;
export const SetupStart = Type.Object({ email: Email, setupCode: SetupCode, passphrase: Passphrase }, { additionalProperties: false });
export type SetupStart = Static<typeof SetupStart>;
export const SetupConfirm = Type.Object({ email: Email, setupCode: SetupCode, code: Code, environment: Type.Optional(Environment) }, { additionalProperties: false });
export type SetupConfirm = Static<typeof SetupConfirm>;

export const SessionMember = Answer({ id: Type.String(), email: Type.String(), role: Type.String() });
export const SessionInfo = Answer({ id: Type.String({ pattern: "^ses_[0-9a-z]{26}$" }), environment: Environment, expiresAt: Iso, createdAt: Iso });
/** A new session: the token is shown here only. */
export const SessionCreated = Answer({ token: Type.String({ pattern: "^crv_sess_[0-9a-f]{64}$" }), session: SessionInfo, member: SessionMember });
export type SessionCreated = Static<typeof SessionCreated>;
export const SessionCurrent = Answer({ session: SessionInfo, member: SessionMember });
export type SessionCurrent = Static<typeof SessionCurrent>;
export const SetupStarted = Answer({ totpSecret: Type.String(), otpauthUri: Type.String(), digits: Type.Number(), period: Type.Number() });
export type SetupStarted = Static<typeof SetupStarted>;

export const CreateKey = Type.Object(
  {
    environment: Environment,
    memberId: Type.Optional(Type.String({ description: "The member the key acts for (default: the signed-in member)" })),
    scopes: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 64 })),
    expiresAt: Type.Optional(Type.String({ format: "date-time", description: "ISO 8601 instant; from then on the key is 401 KEY_REVOKED" })),
  },
  { additionalProperties: false },
);
export type CreateKey = Static<typeof CreateKey>;

export const ApiKeyItem = Answer({
  id: Type.String(),
  hint: Type.String(),
  environment: Environment,
  member: Answer({ id: Type.String(), email: Nullable(Type.String()), role: Nullable(Type.String()) }),
  scopes: Type.Array(Type.String()),
  createdAt: Iso,
  expiresAt: Nullable(Iso),
  lastUsedAt: Nullable(Iso),
  revokedAt: Nullable(Iso),
  status: OneOf(["active", "expired", "revoked"]),
  /** Unused (or never used) for 90 days. */
  stale: Type.Boolean(),
});
export type ApiKeyItem = Static<typeof ApiKeyItem>;
export const ApiKeyCreated = Answer({ ...ApiKeyItem.properties, key: Type.String({ description: "Shown once" }) });
export type ApiKeyCreated = Static<typeof ApiKeyCreated>;

export const InviteMember = Type.Object({ email: Email, role: Role }, { additionalProperties: false });
export type InviteMember = Static<typeof InviteMember>;
export const ChangeMember = Type.Object({ role: Type.Optional(Role), status: Type.Optional(OneOf(["active", "disabled"])) }, { additionalProperties: false, minProperties: 1 });
export type ChangeMember = Static<typeof ChangeMember>;

export const MemberItem = Answer({
  id: Type.String(),
  email: Type.String(),
  role: Type.String(),
  status: OneOf(["active", "disabled"]),
  /** Passphrase and second factor set up. */
  signInReady: Type.Boolean(),
  openSessions: Type.Number(),
  createdAt: Iso,
});
export type MemberItem = Static<typeof MemberItem>;
export const MemberInvited = Answer({ ...MemberItem.properties, setupCode: Type.String({ description: "Shown once; valid 24 hours" }), setupCodeExpiresAt: Iso });
export type MemberInvited = Static<typeof MemberInvited>;

/** Signing out: the session that ended. */
export const SessionEnded = Answer({ id: Type.String(), ended: Type.Literal(true) });

/** One request body each route accepts (the OpenAPI document's examples). */
export const teamExamples = {
  signIn: { email: "officer@example.com", passphrase: "correct horse battery staple", code: "123456", environment: "test" },
  setup: { email: "officer@example.com", setupCode: "ABCD-EFGH-JKMN-PQRS", passphrase: "correct horse battery staple" },
  confirm: { email: "officer@example.com", setupCode: "ABCD-EFGH-JKMN-PQRS", code: "123456", environment: "test" },
  createKey: { environment: "test", scopes: ["transfers:read", "transfers:write"] },
  invite: { email: "analyst@example.com", role: "analyst" },
  change: { role: "compliance_officer" },
} satisfies Record<string, Record<string, unknown>>;
