// provider_a settings read on use (Part 3 "Settings of provider_a"): saving checks nothing; a value that does not fit
// its format fails the call as INVALID_CONFIGURATION. Pure: the allowed origins come from the caller.

/** The provider's documented OAuth origin (CARAVAN_PROVIDER_A_AUTH_URL overrides it). */
export const DEFAULT_AUTH_URL = "https://auth.notabene.id";
/** The two documented regional API origins, EU and US (CARAVAN_PROVIDER_A_API_ORIGINS overrides them). */
export const DEFAULT_API_ORIGINS: readonly string[] = ["https://api.notabene.id", "https://api.us.notabene.id"];

export interface ProviderASettings {
  /** The regional API origin, also the OAuth audience. */
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  vaspDid: string;
  webhookSecret: string;
}

export type SettingsCheck = { ok: true; settings: ProviderASettings } | { ok: false; field: keyof ProviderASettings; problem: string };

const DID = /^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The origin of a URL without path (a trailing "/" allowed), query, fragment or credentials, or null. */
export function originOf(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return null;
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return null;
  if (u.username || u.password || u.search || u.hash || (u.pathname !== "/" && u.pathname !== "")) return null;
  return u.origin;
}

/** `CARAVAN_PROVIDER_A_API_ORIGINS`: comma-separated origins; unusable entries are dropped. */
export function parseOrigins(text: string | undefined): string[] {
  if (!text || !text.trim()) return [...DEFAULT_API_ORIGINS];
  return text
    .split(",")
    .map((s) => originOf(s))
    .filter((o): o is string => o !== null);
}

/** The `whsec_` signing secret's key bytes, or null when it is not `whsec_` followed by non-empty base64. */
export function webhookKey(secret: string): Uint8Array | null {
  const s = secret.trim();
  if (!s.startsWith("whsec_")) return null;
  const b64 = s.slice("whsec_".length);
  if (!b64 || b64.length % 4 !== 0 || !BASE64.test(b64)) return null;
  const bin = atob(b64);
  if (bin.length === 0) return null;
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** Each of the five settings in its format; the apiUrl one of the allowed origins. */
export function checkSettings(credentials: Readonly<Record<string, string | undefined>>, allowedOrigins: readonly string[]): SettingsCheck {
  const v = (k: string) => (credentials[k] ?? "").trim();
  const origin = originOf(v("apiUrl"));
  if (!origin) return { ok: false, field: "apiUrl", problem: "apiUrl must be an API origin" };
  if (!allowedOrigins.includes(origin)) return { ok: false, field: "apiUrl", problem: "apiUrl is not one of the provider's regional API origins" };
  if (!v("clientId") || v("clientId").length > 255) return { ok: false, field: "clientId", problem: "clientId is required (at most 255 characters)" };
  if (!v("clientSecret")) return { ok: false, field: "clientSecret", problem: "clientSecret is required" };
  const did = v("vaspDid");
  if (did.length > 255 || !DID.test(did)) return { ok: false, field: "vaspDid", problem: "vaspDid must be a DID such as did:web:…, at most 255 characters" };
  if (!webhookKey(v("webhookSecret"))) return { ok: false, field: "webhookSecret", problem: "webhookSecret must start with whsec_ followed by base64" };
  return { ok: true, settings: { apiUrl: origin, clientId: v("clientId"), clientSecret: v("clientSecret"), vaspDid: did, webhookSecret: v("webhookSecret") } };
}
