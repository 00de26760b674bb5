// Travel Rule providers and screening integrations: settings (credentials sealed, never returned), switch, test.
import { Type, type Static } from "@sinclair/typebox";
import { Answer, Body, Iso, Nullable } from "./common.ts";

export const PROVIDER_NOTES_MAX = 2000;

// ---- requests ----
export const PutSettings = Body({
  credentials: Type.Record(Type.String(), Type.String(), { description: "Values by field key, as text; an empty value keeps the saved one" }),
  notes: Type.Optional(Type.Union([Type.String({ maxLength: PROVIDER_NOTES_MAX }), Type.Null()], { description: "null clears; absent keeps" })),
});
export type PutSettings = Static<typeof PutSettings>;
export const SwitchSettings = Body({ enabled: Type.Boolean() });
export type SwitchSettings = Static<typeof SwitchSettings>;

export const providerExamples = {
  // provider_b's fields; each provider's own fields are listed by GET /api/v2/providers/:name.
  providerPut: { credentials: { apiUrl: "https://api.provider.example", vaspEntityId: "VASP-1", privateKey: "<base64 of the Ed25519 seed>", legalName: "Example VASP B.V.", country: "NL" }, notes: "Production account" },
  // screening_c's fields; each integration's own fields are listed by GET /api/v2/integrations/:name.
  integrationPut: { credentials: { apiKey: "<search API key>", region: "eu" } },
  switch: { enabled: true },
};

// ---- answers ----
export const SettingsField = Answer({
  key: Type.String(),
  label: Type.String(),
  type: Type.String(),
  required: Type.Boolean(),
  placeholder: Type.Optional(Type.String()),
  help: Type.Optional(Type.String()),
  options: Type.Optional(Type.Array(Answer({ value: Type.String(), label: Type.String() }))),
});

const settings = {
  name: Type.String(),
  displayName: Type.String(),
  website: Nullable(Type.String()),
  docsUrl: Nullable(Type.String()),
  description: Type.String(),
  fields: Type.Array(SettingsField),
  configured: Type.Boolean(),
  configuredFields: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  notes: Nullable(Type.String()),
  lastTestedAt: Nullable(Iso),
  lastTestResult: Type.Unknown(),
  lastError: Nullable(Type.String()),
  createdAt: Nullable(Iso),
  updatedAt: Nullable(Iso),
};
/** A Travel Rule provider's settings as answered (credentials never). */
export const Provider = Answer({ ...settings, protocol: Type.String(), protocolLabel: Type.String(), priority: Type.Integer(), callbackPaths: Type.Array(Type.Unknown()) });
export type Provider = Static<typeof Provider>;
/** A screening integration's settings as answered (credentials never); `id` once configured. */
export const Integration = Answer({ ...settings, id: Nullable(Type.String()), type: Type.String() });
export type Integration = Static<typeof Integration>;
