// provider_d's settings read into what the TRP exchange needs (docs/providers/provider_d.md "Settings"): our public
// origin, what /identity says, our TLS certificate and key, the CAs whose clients we accept, the counterparties we
// know. Pure (node:crypto parses certificates; nothing is fetched). Issues never quote a value.
import { createHash, createPrivateKey, X509Certificate } from "node:crypto";
import type { Issue } from "../errors.ts";

export interface Counterparty {
  name: string;
  lei: string | null;
  /** The counterparty's TRP base URL (https): its discoverability routes live beneath it. */
  endpoint: string;
  /** SHA-256 of the DER of the certificate that identifies it, lower-case hex without separators. */
  fingerprint: string;
  /**
   * Its inquiry endpoint for a transfer without a Travel Address (an https URL beneath `endpoint`, e.g. Envoy's
   * `<endpoint>/transfers`, where the beneficiary is named by its account in the IVMS101); null when it has none.
   */
  inquiryUrl: string | null;
}

export interface ProviderDConfig {
  baseUrl: string;
  legalName: string;
  lei: string;
  certificatePem: string;
  privateKeyPem: string;
  caPems: string[];
  counterparties: Counterparty[];
}

export const MAX_COUNTERPARTIES = 500;

/** ISO 17442: 18 letters or digits, then two check digits (ISO 7064 MOD 97-10 over the whole code is 1). */
export function isLei(text: string): boolean {
  if (!/^[0-9A-Z]{18}[0-9]{2}$/.test(text)) return false;
  let rem = 0;
  for (const ch of text) {
    const v = ch >= "A" ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of v) rem = (rem * 10 + Number(d)) % 97;
  }
  return rem === 1;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Every certificate of a PEM text, each parsed; null when none is there or one does not parse. */
export function certificatesOf(pem: string): X509Certificate[] | null {
  const blocks = pem.match(PEM_CERT);
  if (!blocks || blocks.length === 0) return null;
  try {
    return blocks.map((b) => new X509Certificate(b));
  } catch {
    return null;
  }
}

/** The SHA-256 fingerprint of a certificate's DER, lower-case hex without separators. */
export function fingerprintOf(cert: X509Certificate | Uint8Array): string {
  const der = cert instanceof X509Certificate ? cert.raw : cert;
  return createHash("sha256").update(der).digest("hex");
}

export function normalizeFingerprint(text: string): string | null {
  const t = text.replace(/[:\s]/g, "").toLowerCase();
  return /^[0-9a-f]{64}$/.test(t) ? t : null;
}

function httpsBase(text: string): string | null {
  if (/[\s\\]/.test(text)) return null;
  try {
    const u = new URL(text);
    if (u.protocol !== "https:" || u.username !== "" || u.password !== "" || u.search !== "" || u.hash !== "") return null;
    return u.href.replace(/\/+$/, "");
  } catch {
    return null;
  }
}

/** `url` when it is an https URL (no query, fragment or credentials) of the endpoint's origin, beneath its path. */
function beneath(endpoint: string, url: string): string | null {
  const u = httpsBase(url);
  if (!u) return null;
  const e = new URL(endpoint), v = new URL(u);
  return e.origin === v.origin && (v.pathname === e.pathname || v.pathname.startsWith(e.pathname.replace(/\/?$/, "/"))) ? u : null;
}

export type ConfigRead = { ok: true; config: ProviderDConfig } | { ok: false; issues: Issue[] };

/** The saved values read and checked: on save (INVALID_FIELDS with these issues) and again on use. */
export function readProviderDConfig(v: Readonly<Record<string, string>>, now: number): ConfigRead {
  const issues: Issue[] = [];
  const bad = (key: string, message: string) => issues.push({ path: `credentials.${key}`, message });
  const baseUrl = httpsBase(v.baseUrl ?? "");
  if (!baseUrl) bad("baseUrl", "must be an https URL without query, fragment or credentials");
  const legalName = (v.legalName ?? "").trim();
  if (legalName === "" || legalName.length > 200) bad("legalName", "must be 1 to 200 characters");
  if (!isLei(v.lei ?? "")) bad("lei", "must be an LEI: 20 characters, upper-case letters and digits, valid check digits");
  const chain = certificatesOf(v.tlsCertificate ?? "");
  if (!chain) bad("tlsCertificate", "must be a PEM certificate (its chain may follow)");
  else if (Date.parse(chain[0].validTo) <= now || Date.parse(chain[0].validFrom) > now) bad("tlsCertificate", "is not valid now");
  let keyOk = false;
  try {
    const key = createPrivateKey(v.tlsPrivateKey ?? "");
    keyOk = true;
    if (chain && !chain[0].checkPrivateKey(key)) bad("tlsPrivateKey", "does not belong to the certificate");
  } catch {
    if (!keyOk) bad("tlsPrivateKey", "must be a PEM private key");
  }
  const cas = certificatesOf(v.clientCaCertificates ?? "");
  if (!cas) bad("clientCaCertificates", "must be one or more PEM certificates");
  const counterparties: Counterparty[] = [];
  if (v.counterparties !== undefined && v.counterparties.trim() !== "") {
    let list: unknown;
    try {
      list = JSON.parse(v.counterparties);
    } catch {
      list = undefined;
    }
    if (!Array.isArray(list)) bad("counterparties", "must be a JSON list of {name, lei?, endpoint, inquiryUrl?, certificate | fingerprint}");
    else if (list.length > MAX_COUNTERPARTIES) bad("counterparties", `at most ${MAX_COUNTERPARTIES}`);
    else
      list.forEach((c, i) => {
        const o = (typeof c === "object" && c !== null ? c : {}) as Record<string, unknown>;
        const name = typeof o.name === "string" ? o.name.trim() : "";
        const endpoint = typeof o.endpoint === "string" ? httpsBase(o.endpoint) : null;
        const lei = o.lei === undefined || o.lei === null ? null : typeof o.lei === "string" && isLei(o.lei) ? o.lei : undefined;
        const inquiryUrl = o.inquiryUrl === undefined || o.inquiryUrl === null ? null : typeof o.inquiryUrl === "string" && endpoint ? (beneath(endpoint, o.inquiryUrl) ?? undefined) : undefined;
        let fingerprint: string | null = null;
        if (typeof o.fingerprint === "string") fingerprint = normalizeFingerprint(o.fingerprint);
        else if (typeof o.certificate === "string") {
          const certs = certificatesOf(o.certificate);
          fingerprint = certs ? fingerprintOf(certs[0]) : null;
        }
        if (name === "" || name.length > 200) bad("counterparties", `entry ${i + 1}: name must be 1 to 200 characters`);
        else if (!endpoint) bad("counterparties", `entry ${i + 1}: endpoint must be an https URL`);
        else if (lei === undefined) bad("counterparties", `entry ${i + 1}: lei must be an LEI`);
        else if (!fingerprint) bad("counterparties", `entry ${i + 1}: needs its certificate (PEM) or its SHA-256 fingerprint`);
        else if (inquiryUrl === undefined) bad("counterparties", `entry ${i + 1}: inquiryUrl must be an https URL beneath its endpoint`);
        else counterparties.push({ name, lei, endpoint, fingerprint, inquiryUrl });
      });
    const seen = new Set<string>();
    for (const c of counterparties) {
      if (seen.has(c.fingerprint)) bad("counterparties", "two entries name the same certificate");
      seen.add(c.fingerprint);
    }
  }
  if (issues.length) return { ok: false, issues };
  return {
    ok: true,
    config: { baseUrl: baseUrl!, legalName, lei: v.lei, certificatePem: v.tlsCertificate, privateKeyPem: v.tlsPrivateKey, caPems: cas!.map((c) => c.toString()), counterparties },
  };
}

const validAt = (c: X509Certificate, now: number) => Date.parse(c.validFrom) <= now && Date.parse(c.validTo) > now;
const signedBy = (c: X509Certificate, issuer: X509Certificate) => {
  try {
    return c.checkIssued(issuer) && c.verify(issuer.publicKey);
  } catch {
    return false;
  }
};

/**
 * The certificate chains to an accepted CA: issued and signed by one directly, or through intermediate CA
 * certificates the client presented (each valid now, a CA, signing the one below), at most four of them.
 */
export function chainsToAccepted(config: ProviderDConfig, cert: X509Certificate, intermediates: readonly X509Certificate[], now: number): boolean {
  const roots = config.caPems.flatMap((pem) => {
    try {
      return [new X509Certificate(pem)];
    } catch {
      return [];
    }
  });
  let current = cert;
  for (let depth = 0; depth <= 4; depth++) {
    if (roots.some((ca) => validAt(ca, now) && signedBy(current, ca))) return true;
    const next = intermediates.find((i) => i.ca && validAt(i, now) && i.fingerprint256 !== current.fingerprint256 && signedBy(current, i));
    if (!next) return false;
    current = next;
  }
  return false;
}

/** The counterparty a verified client certificate names, by its fingerprint; undefined for one no counterparty owns. */
export function counterpartyByFingerprint(config: ProviderDConfig, fingerprint: string): Counterparty | undefined {
  return config.counterparties.find((c) => c.fingerprint === fingerprint);
}

/** The counterparty whose endpoint the URL lies under (same origin, path beneath the endpoint's). */
export function counterpartyForUrl(config: ProviderDConfig, url: string): Counterparty | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  return config.counterparties.find((c) => {
    const e = new URL(c.endpoint);
    return e.origin === u.origin && (u.pathname === e.pathname || u.pathname.startsWith(e.pathname.replace(/\/?$/, "/")));
  });
}

export type ClientCheck = { ok: true; counterparty: Counterparty; fingerprint: string } | { ok: false; reason: "not_yet_valid" | "expired" | "untrusted_issuer" | "unknown_counterparty" };

/**
 * A client certificate as the TRP endpoint accepts it: valid at `now`, issued (and signed) by one of the accepted
 * CAs, and owned by a known counterparty (its SHA-256 fingerprint). The certificate the TLS layer received is checked
 * here, so every refusal has its reason (the TLS listener asks for a certificate but leaves the verdict to this).
 */
export function checkClientCertificate(config: ProviderDConfig, cert: X509Certificate, now: number, intermediates: readonly X509Certificate[] = []): ClientCheck {
  if (Date.parse(cert.validFrom) > now) return { ok: false, reason: "not_yet_valid" };
  if (Date.parse(cert.validTo) <= now) return { ok: false, reason: "expired" };
  if (!chainsToAccepted(config, cert, intermediates, now)) return { ok: false, reason: "untrusted_issuer" };
  const fingerprint = fingerprintOf(cert);
  const counterparty = counterpartyByFingerprint(config, fingerprint);
  return counterparty ? { ok: true, counterparty, fingerprint } : { ok: false, reason: "unknown_counterparty" };
}
