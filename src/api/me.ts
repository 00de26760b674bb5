// GET /api/v2/me: who the calling key is, for clients such as the console.
import { Type, type Static } from "@sinclair/typebox";
import { Answer, Nullable, OneOf } from "./common.ts";

export const Me = Answer({
  company: Answer({ slug: Type.String() }),
  environment: OneOf(["test", "live"]),
  member: Answer({ id: Type.String(), email: Nullable(Type.String()), role: Type.String() }),
  key: Answer({ id: Type.String(), scopes: Type.Array(Type.String()) }),
  permissions: Type.Array(Type.String()),
});
export type Me = Static<typeof Me>;
