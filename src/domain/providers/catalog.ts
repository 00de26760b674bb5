// The nine settings definitions (Part 2 "Provider and integration settings", Part 3 "Settings of …", "Callback paths"),
// and the rules a PUT's credentials follow: unknown fields, missing required values, provider_e's value formats. Pure.
import { PROVIDER_B_CALLBACKS } from "../provider_b/endpoints.ts";
import type { Environment } from "../types.ts";
import type { Issue } from "../errors.ts";
import { readProviderDConfig } from "../provider_d/settings.ts";

export const PROVIDER_NAMES = ["provider_a", "provider_b", "provider_c", "provider_d", "provider_e"] as const;
export const INTEGRATION_NAMES = ["screening_a", "screening_b", "screening_c", "screening_d"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];
export type IntegrationName = (typeof INTEGRATION_NAMES)[number];
export type SettingsName = ProviderName | IntegrationName;
export type SettingsKind = "provider" | "integration";

export type FieldType = "text" | "password" | "textarea" | "select";

export interface FieldOption {
  value: string;
  label: string;
}

/** One setting as the API lists it; a `password` field holds a secret. */
export interface FieldDef {
  key: string;
  label: string;
  type: FieldType;
  required: boolean;
  options?: readonly FieldOption[];
  placeholder?: string;
  help?: string;
}

/** A path the provider calls on the company's host; `{environment}` and `{providerId}` are filled in per company. */
export interface CallbackPathTemplate {
  method: "GET" | "POST" | "PUT";
  path: string;
  label: string;
}

interface CommonDef {
  name: SettingsName;
  displayName: string;
  /** The real system behind the name, where Part 3's sources identify it (`../shared/PROVIDERS.md`); null otherwise. */
  website: string | null;
  docsUrl: string | null;
  description: string;
  fields: readonly FieldDef[];
}

export interface ProviderDef extends CommonDef {
  kind: "provider";
  name: ProviderName;
  /** Part 1: the protocol value of each provider equals its name. */
  protocol: ProviderName;
  protocolLabel: string;
  /** Lower is tried first when several providers could carry a transfer. */
  priority: number;
  callbackPaths: readonly CallbackPathTemplate[];
}

export interface IntegrationDef extends CommonDef {
  kind: "integration";
  name: IntegrationName;
  type: "blockchain_analytics" | "sanctions" | "kyc";
}

export type SettingsDef = ProviderDef | IntegrationDef;

const req = (key: string, label: string, type: FieldType, extra: Partial<FieldDef> = {}): FieldDef => ({ key, label, type, required: true, ...extra });
const opt = (key: string, label: string, type: FieldType, extra: Partial<FieldDef> = {}): FieldDef => ({ key, label, type, required: false, ...extra });

const TRP = "/api/system/trp";

// Part 3 "Callback paths": provider_b's endpoints are listed one by one, each with its method.
const PROVIDER_B_ENDPOINTS: readonly CallbackPathTemplate[] = PROVIDER_B_CALLBACKS.map(({ method, path, label }) => ({ method, label, path: `${TRP}/provider_b/{environment}/connections/{providerId}/${path}` }));

// Part 3: `permission` is not listed (its URL, with a token, goes in each permission request).
const PROVIDER_E_EVENTS: readonly CallbackPathTemplate[] = [
  { event: "permission-request", label: "Permission requests" },
  { event: "address-validation", label: "Address validation" },
  { event: "txid", label: "Transaction IDs" },
  { event: "cancel", label: "Cancellations" },
  { event: "cdd", label: "Information requests" },
].map((e) => ({ method: "POST" as const, path: `${TRP}/provider_e/{environment}/{providerId}/${e.event}`, label: e.label }));

export const PROVIDERS: readonly ProviderDef[] = [
  {
    kind: "provider",
    name: "provider_a",
    protocol: "provider_a",
    displayName: "Provider A",
    protocolLabel: "OAuth REST with signed webhooks",
    website: "https://notabene.id",
    docsUrl: "https://devx.notabene.id",
    description: "Travel Rule network for direct transfers between two VASPs: OAuth client credentials, IVMS101 held by the provider, signed webhook events.",
    priority: 1,
    fields: [
      req("apiUrl", "API region", "text", { placeholder: "https://…", help: "One of the two regional API origins (EU or US) hosting the environment's entity" }),
      req("clientId", "Client ID", "text", { help: "OAuth client ID" }),
      req("clientSecret", "Client secret", "password", { help: "Secret of that client" }),
      req("vaspDid", "Entity DID", "text", { placeholder: "did:web:…", help: "The environment's entity, at most 255 characters" }),
      req("webhookSecret", "Signing secret", "password", { placeholder: "whsec_…", help: "Endpoint signing secret starting with whsec_" }),
    ],
    callbackPaths: [{ method: "POST", path: `${TRP}/provider_a/{environment}/{providerId}`, label: "Webhook events" }],
  },
  {
    kind: "provider",
    name: "provider_b",
    protocol: "provider_b",
    displayName: "Provider B",
    protocolLabel: "Signed REST with end-to-end encrypted IVMS101",
    website: "https://www.codevasp.com",
    docsUrl: "https://docs.codevasp.com",
    description: "Travel Rule network where each transfer is decided within one request: Ed25519-signed calls, IVMS101 encrypted end to end.",
    priority: 2,
    fields: [
      req("apiUrl", "API URL", "text", { placeholder: "https://…", help: "Provider API origin for the environment: https://, no path, query or credentials" }),
      req("vaspEntityId", "VASP entity ID", "text", { help: "The VASP's entity ID: letters, digits, _ and -" }),
      req("privateKey", "Private key", "password", { help: "Ed25519 key: base64 of the 32-byte seed" }),
      req("legalName", "Legal name", "text", { help: "Registered legal name, sent as the company's VASP in IVMS101 data" }),
      req("country", "Country", "text", { placeholder: "NL", help: "Country of registration: two uppercase letters" }),
    ],
    callbackPaths: PROVIDER_B_ENDPOINTS,
  },
  {
    kind: "provider",
    name: "provider_e",
    protocol: "provider_e",
    displayName: "Provider E",
    protocolLabel: "Signed, encrypted IVMS101 exchange with information requests",
    website: "https://www.sygna.io",
    docsUrl: "https://developers.sygna.io",
    description: "Travel Rule network with a signed VASP directory: secp256k1-signed messages, ECIES-encrypted IVMS101, permission requests and information requests.",
    priority: 3,
    fields: [
      req("apiKey", "API key", "password", { help: "Sent as x-api-key with every request" }),
      req("vaspCode", "VASP code", "text", { help: "8 to 64 letters, digits, _ or -" }),
      req("privateKey", "Private key", "password", {
        help: "secp256k1 key, 64 hexadecimal characters; signs outgoing data and decrypts incoming data; its public key must be listed in the provider's directory for the VASP code",
      }),
      req("bridgePublicKey", "Provider public key", "text", { placeholder: "04…", help: "Provider verification key for the environment: 130 hexadecimal characters starting 04" }),
      req("callbackBaseUrl", "Callback base URL", "text", { placeholder: "https://…", help: "The company's host as an HTTPS origin: no path, query, fragment or credentials" }),
      opt("discoveryVaspCodes", "Discovery VASP codes", "textarea", {
        placeholder: "*",
        help: "VASP codes discovery may ask, separated by commas or spaces, at most 500; * or no value means the whole directory",
      }),
    ],
    callbackPaths: PROVIDER_E_EVENTS,
  },
  // provider_c and provider_d: credential fields "not shown" (Part 3); designed here, documented in the README.
  {
    kind: "provider",
    name: "provider_c",
    protocol: "provider_c",
    displayName: "Provider C",
    protocolLabel: "Node with per-customer key pairs",
    website: null,
    docsUrl: null,
    description: "Travel Rule network run through the VASP's own node, with a key pair for each customer; receives transfers, cannot send them yet.",
    priority: 4,
    fields: [
      req("apiUrl", "Node API URL", "text", { placeholder: "https://…", help: "HTTPS origin of the environment's node" }),
      req("apiToken", "API token", "password", { help: "Bearer token for the node's API" }),
      req("trustAnchorAddress", "Trust anchor account", "text", { placeholder: "0x…", help: "The company's registered account: 0x and 40 hexadecimal characters" }),
      req("trustAnchorPrivateKey", "Trust anchor private key", "password", { help: "secp256k1 key of that account, 64 hexadecimal characters; signs attestations" }),
      req("webhookSecret", "Callback secret", "password", { help: "Shared secret the node signs incoming callbacks with" }),
    ],
    callbackPaths: [{ method: "POST", path: `${TRP}/provider_c/{environment}/{providerId}/incoming`, label: "Incoming transfers" }],
  },
  {
    kind: "provider",
    name: "provider_d",
    protocol: "provider_d",
    displayName: "Provider D",
    protocolLabel: "Travel Rule Protocol (TRP v3) over mutual TLS",
    website: "https://www.openvasp.org",
    docsUrl: "https://gitlab.com/OpenVASP/travel-rule-protocol",
    description: "Open Travel Rule Protocol between two VASPs directly: HTTPS and JSON with mutual TLS, Travel Addresses, no network operator.",
    priority: 5,
    fields: [
      req("baseUrl", "Public base URL", "text", { placeholder: "https://…", help: "The company's host as counterparties reach it over TLS: Travel Addresses and callbacks are built on it" }),
      req("legalName", "Legal name", "text", { help: "What /identity answers as name, and our VASP in IVMS101 data" }),
      req("lei", "LEI", "text", { help: "Legal Entity Identifier (20 characters, valid check digits), answered by /identity" }),
      req("tlsCertificate", "TLS certificate", "textarea", { placeholder: "-----BEGIN CERTIFICATE-----", help: "Our certificate (PEM, chain may follow): presented to counterparties as client and as server" }),
      req("tlsPrivateKey", "TLS private key", "password", { help: "PEM private key of that certificate; never returned" }),
      req("clientCaCertificates", "Accepted certificate authorities", "textarea", { placeholder: "-----BEGIN CERTIFICATE-----", help: "PEM certificates of the CAs whose certificates we accept from counterparties (clients and servers)" }),
      opt("counterparties", "Known counterparties", "textarea", {
        placeholder: '[{"name":"…","lei":"…","endpoint":"https://…","certificate":"-----BEGIN CERTIFICATE-----…"}]',
        help: "JSON list: name, optional LEI, TRP endpoint (https), optional inquiryUrl (its inquiry endpoint for transfers without a Travel Address), and the certificate (PEM) or SHA-256 fingerprint that identifies each",
      }),
    ],
    callbackPaths: [{ method: "POST", path: `${TRP}/provider_d/{environment}/{providerId}`, label: "TRP inquiries, resolutions and confirmations" }],
  },
];

export const INTEGRATIONS: readonly IntegrationDef[] = [
  // screening_a and screening_b: type and credential fields "not shown" (Part 3); designed here, documented in the README.
  {
    kind: "integration",
    name: "screening_a",
    type: "blockchain_analytics",
    displayName: "Screening A",
    website: null,
    docsUrl: null,
    description: "Transaction monitoring: risk of the addresses on a transfer from their on-chain exposure.",
    fields: [
      req("apiKey", "API key", "password", { help: "Secret, never returned" }),
      opt("region", "Account region (default EU)", "select", {
        options: [
          { value: "eu", label: "EU" },
          { value: "us", label: "US" },
        ],
        help: "Selects the base address; checked on use",
      }),
    ],
  },
  {
    kind: "integration",
    name: "screening_b",
    type: "kyc",
    displayName: "Screening B",
    website: null,
    docsUrl: null,
    description: "Identity verification: checks the persons of a transfer against the vendor's verification records.",
    fields: [
      req("apiToken", "App token", "password", { help: "Secret, never returned" }),
      req("secretKey", "Secret key", "password", { help: "Signs each request (HMAC-SHA256); never returned" }),
      opt("levelName", "Verification level", "text", { help: "The vendor's verification level the checks use; the account's default when empty" }),
    ],
  },
  {
    kind: "integration",
    name: "screening_c",
    type: "sanctions",
    displayName: "Screening C",
    website: "https://complyadvantage.com",
    docsUrl: "https://docs.complyadvantage.com",
    description: "Name screening: searches each party's name against sanctions, watchlists and adverse media.",
    fields: [
      req("apiKey", "Search API key", "password", { help: "Secret, never returned" }),
      opt("region", "Account region (default EU)", "select", {
        options: [
          { value: "eu", label: "EU" },
          { value: "us", label: "US" },
          { value: "apac", label: "APAC" },
        ],
        help: "Selects the base address; checked on use",
      }),
      opt("fuzziness", "Name fuzziness", "text", { placeholder: "0.6", help: "A number from 0 to 1, default 0.6; checked on use" }),
    ],
  },
  {
    kind: "integration",
    name: "screening_d",
    type: "blockchain_analytics",
    displayName: "Screening D",
    website: "https://crystalintelligence.com",
    docsUrl: null,
    description: "Address screening: a risk score from 0 to 1 for each address on a transfer.",
    fields: [
      req("apiKey", "API key", "password", { help: "Secret, never returned" }),
      opt("entityList", "Entity list", "select", {
        options: [
          { value: "true", label: "Yes" },
          { value: "false", label: "No" },
        ],
        help: "true sends entity_list: true; false or no value sends false; checked on use",
      }),
    ],
  },
];

const BY_NAME = new Map<string, SettingsDef>([...PROVIDERS, ...INTEGRATIONS].map((d) => [d.name, d]));

/** The definition of a name of that kind; undefined for any other name (404 PROVIDER_NOT_FOUND / INTEGRATION_NOT_FOUND). */
export function definition(kind: "provider", name: string): ProviderDef | undefined;
export function definition(kind: "integration", name: string): IntegrationDef | undefined;
export function definition(kind: SettingsKind, name: string): SettingsDef | undefined;
export function definition(kind: SettingsKind, name: string): SettingsDef | undefined {
  const d = BY_NAME.get(name);
  return d && d.kind === kind ? d : undefined;
}

export function definitionOf(name: SettingsName): SettingsDef {
  return BY_NAME.get(name)!;
}

export function kindOf(name: SettingsName): SettingsKind {
  return definitionOf(name).kind;
}

/** Providers by priority, integrations by name: the list order of the API. */
export function definitions(kind: SettingsKind): readonly SettingsDef[] {
  return kind === "provider" ? [...PROVIDERS].sort((a, b) => a.priority - b.priority) : INTEGRATIONS;
}

export function secretFields(def: SettingsDef): string[] {
  return def.fields.filter((f) => f.type === "password").map((f) => f.key);
}

/** Part 3 "Callback paths" for one environment, with the company's provider ID. */
export function callbackPaths(def: ProviderDef, env: Environment, providerId: string): { method: string; path: string; label: string }[] {
  return def.callbackPaths.map((c) => ({ method: c.method, path: c.path.replace("{environment}", env).replace("{providerId}", providerId), label: c.label }));
}

// ---------------------------------------------------------------------------------------------------------------
// PUT body: { credentials: { <field key>: text }, notes?: text | null }

export const NOTES_MAX = 2000;

export interface SettingsInput {
  /** Values sent, by field key; blank values are left out (an empty value keeps the saved one). */
  credentials: Record<string, string>;
  /** undefined: keep; null: clear. */
  notes: string | null | undefined;
}

export type BodyCheck =
  | { ok: true; value: SettingsInput }
  | { ok: false; code: "VALIDATION_ERROR"; issues: Issue[] }
  | { ok: false; code: "UNKNOWN_FIELDS"; fields: string[] };

const charCount = (s: string) => Array.from(s).length;

/** The body's shape (VALIDATION_ERROR with issues), then field keys the definition does not take (UNKNOWN_FIELDS). */
export function checkSettingsBody(def: SettingsDef, body: unknown): BodyCheck {
  const issues: Issue[] = [];
  if (body === undefined || body === null || typeof body !== "object" || Array.isArray(body)) {
    return { ok: false, code: "VALIDATION_ERROR", issues: [{ path: "", message: "the body must be a JSON object with credentials" }] };
  }
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (k !== "credentials" && k !== "notes") issues.push({ path: k, message: "is not a settings field (credentials, notes)" });
  const creds = Object.hasOwn(b, "credentials") ? b.credentials : undefined;
  if (creds === undefined) issues.push({ path: "credentials", message: "is required" });
  else if (creds === null || typeof creds !== "object" || Array.isArray(creds)) issues.push({ path: "credentials", message: "must be an object of text values by field key" });
  else
    for (const [k, v] of Object.entries(creds as Record<string, unknown>))
      if (typeof v !== "string") issues.push({ path: `credentials.${k}`, message: "must be text" });
  let notes: string | null | undefined;
  if (Object.hasOwn(b, "notes")) {
    const n = b.notes;
    if (n === null) notes = null;
    else if (typeof n !== "string") issues.push({ path: "notes", message: "must be text or null" });
    else if (charCount(n) > NOTES_MAX) issues.push({ path: "notes", message: `must be at most ${NOTES_MAX} characters` });
    else notes = n;
  }
  if (issues.length) return { ok: false, code: "VALIDATION_ERROR", issues };
  const sent = creds as Record<string, string>;
  const known = new Set(def.fields.map((f) => f.key));
  const unknown = Object.keys(sent).filter((k) => !known.has(k));
  if (unknown.length) return { ok: false, code: "UNKNOWN_FIELDS", fields: unknown };
  const credentials: Record<string, string> = {};
  for (const f of def.fields) {
    if (!Object.hasOwn(sent, f.key)) continue;
    // Pasted keys often carry spaces or a newline; a value of only whitespace is an empty value.
    const v = sent[f.key].trim();
    if (v !== "") credentials[f.key] = v;
  }
  return { ok: true, value: { credentials, notes } };
}

export type MergeOutcome =
  | { ok: true; values: Record<string, string> }
  | { ok: false; code: "MISSING_FIELDS"; fields: string[] }
  | { ok: false; code: "INVALID_FIELDS"; fields: string[]; issues: Issue[] };

/** The values after a save: sent values over saved ones; every required field must hold one; provider_e's formats. */
export function mergeCredentials(def: SettingsDef, sent: Record<string, string>, saved: Record<string, string> | null, now: number): MergeOutcome {
  const values: Record<string, string> = {};
  for (const f of def.fields) {
    const v = Object.hasOwn(sent, f.key) ? sent[f.key] : saved && Object.hasOwn(saved, f.key) ? saved[f.key] : undefined;
    if (v !== undefined && v !== "") values[f.key] = v;
  }
  const missing = def.fields.filter((f) => f.required && values[f.key] === undefined).map((f) => f.key);
  if (missing.length) return { ok: false, code: "MISSING_FIELDS", fields: missing };
  const issues = validateValues(def, values, now);
  if (issues.length) return { ok: false, code: "INVALID_FIELDS", fields: issues.map((i) => i.path.replace(/^credentials\./, "")), issues };
  return { ok: true, values };
}

/** Field keys that hold a value, in definition order. */
export function configuredFields(def: SettingsDef, values: Record<string, string>): string[] {
  return def.fields.filter((f) => values[f.key] !== undefined && values[f.key] !== "").map((f) => f.key);
}

// Part 3: only provider_e's values are checked on save; provider_a's and provider_b's formats are checked on use,
// and the designed ones follow them (a value that does not fit fails the connection test, not the save).
function validateValues(def: SettingsDef, v: Record<string, string>, now: number): Issue[] {
  if (def.name === "provider_d") {
    const read = readProviderDConfig(v, now);
    return read.ok ? [] : read.issues;
  }
  if (def.name !== "provider_e") return [];
  const issues: Issue[] = [];
  const bad = (key: string, message: string) => issues.push({ path: `credentials.${key}`, message });
  if (!VASP_CODE.test(v.vaspCode)) bad("vaspCode", "must be 8 to 64 letters, digits, _ or -");
  if (!/^[0-9a-fA-F]{64}$/.test(v.privateKey)) bad("privateKey", "must be a secp256k1 private key: 64 hexadecimal characters");
  if (!/^04[0-9a-fA-F]{128}$/.test(v.bridgePublicKey)) bad("bridgePublicKey", "must be 130 hexadecimal characters starting 04 (an uncompressed secp256k1 public key)");
  if (!isHttpsOrigin(v.callbackBaseUrl)) bad("callbackBaseUrl", "must be an HTTPS origin (https://host[:port]) without path, query, fragment or credentials");
  if (v.discoveryVaspCodes !== undefined) {
    const codes = parseDiscoveryCodes(v.discoveryVaspCodes);
    if (!codes.ok) bad("discoveryVaspCodes", codes.message);
  }
  return issues;
}

const VASP_CODE = /^[A-Za-z0-9_-]{8,64}$/;
export const DISCOVERY_MAX_CODES = 500;

/** provider_e `discoveryVaspCodes`: `*` (or nothing) is the whole directory, else up to 500 distinct codes separated by commas or spaces. */
export function parseDiscoveryCodes(text: string | undefined): { ok: true; codes: "*" | string[] } | { ok: false; message: string } {
  const t = (text ?? "").trim();
  if (t === "" || t === "*") return { ok: true, codes: "*" };
  const parts = t.split(/[\s,]+/).filter((p) => p !== "");
  if (parts.includes("*")) return { ok: false, message: "* stands alone: the whole directory, without codes" };
  const wrong = parts.filter((p) => !VASP_CODE.test(p));
  if (wrong.length) return { ok: false, message: `every code must be 8 to 64 letters, digits, _ or - (${wrong.length} not)` };
  const codes = [...new Set(parts)];
  if (codes.length > DISCOVERY_MAX_CODES) return { ok: false, message: `at most ${DISCOVERY_MAX_CODES} codes (got ${codes.length})` };
  return { ok: true, codes };
}

/** `https://host[:port]`, an optional trailing slash and nothing else. */
export function isHttpsOrigin(text: string): boolean {
  if (!/^https:\/\/[^/?#@\\\s]+\/?$/i.test(text)) return false;
  try {
    const u = new URL(text);
    return u.protocol === "https:" && u.hostname !== "" && u.username === "" && u.password === "" && u.pathname === "/" && u.search === "" && u.hash === "";
  } catch {
    return false;
  }
}
