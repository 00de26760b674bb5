// provider_b callbacks (Part 3 "provider_b callbacks", Authentication 3): source address, size, budget, provider, headers, body, decryption, then each endpoint.
import { readJsonCapped } from "../../adapters/net/read.ts";
import { ClientAddresses } from "../../adapters/net/client-address.ts";
import { PROVIDER_B_CALLBACKS, type ProviderBCallback } from "../../domain/provider_b/endpoints.ts";
import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import type { Environment } from "../../domain/types.ts";
import { ApiError } from "../../domain/errors.ts";
import { isCountryCode } from "../../domain/ivms101/index.ts";
import type { CountryCode } from "../../domain/ivms101/types.ts";
import { parseAllowedSources, sourceAllowed } from "../../domain/provider_b/sources.ts";
import { base64ToBytes, bytesToBase64, keypairFromSeed, openPayload, sealPayload, toX25519Public } from "../../adapters/providers/provider_b/crypto.ts";
import { ENTITY_ID, HEADER, parseOrigin, readThresholdFlag } from "../../adapters/providers/provider_b/wire.ts";
import { json } from "../kit.ts";
import { resolveCompany } from "../auth.ts";
import { ProviderBFlows, isAmount, refusal, type Answer, type Call, type Setup } from "./provider_b-flows.ts";

/** Part 3, Limits: "provider_b callback body 256 KiB". */
export const MAX_CALLBACK_BODY = 256 * 1024;
/** Longest plain text field taken (IDs, codes, addresses); `payload` is bounded by the body limit only. */
const MAX_FIELD = 1024;

export const TRP_NOT_FOUND = { error: "Not found", code: "NOT_FOUND" } as const;
/** Part 3, Callback paths: "Any other path under /api/system/trp is 404 { error: Not found, code: NOT_FOUND }", exactly that body. */
export const trpNotFound = (): Response => json(404, TRP_NOT_FOUND);

type Endpoint = ProviderBCallback;

const PREFIX = "/api/system/trp/provider_b/:environment/connections/:providerId";

/** Part 3, provider_b callbacks: the table's endpoints, each with its method; any other method or path is 404. */
const ROUTES = PROVIDER_B_CALLBACKS;

/** Endpoints whose `payload` is sealed for us (VerifyAddress, the authorization, the transfer-data request). */
const SEALED: ReadonlySet<Endpoint> = new Set(["verifyAddress", "transfer", "transferData"]);

/** The body fields each endpoint takes: required and optional text (PROVIDERS.md, provider_b; wire.ts types). */
const FIELDS: Record<Exclude<Endpoint, "health">, { req: readonly string[]; opt: readonly string[] }> = {
  verifyAddress: { req: ["currency", "payload"], opt: ["address", "tag", "network"] },
  transfer: { req: ["transferId", "currency", "amount", "payload"], opt: ["tradePrice", "tradeCurrency", "historicalCost", "address", "tag", "network"] },
  txid: { req: ["transferId", "txid"], opt: [] },
  cancel: { req: ["transferId", "status"], opt: ["reasonType"] },
  status: { req: ["transferId"], opt: [] },
  verifyTx: { req: ["txid", "beneficiaryAddress"], opt: [] },
  transferData: { req: ["transferId", "txid", "beneficiaryAddress", "payload"], opt: [] },
};

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** The body's fields, or null when one is missing or invalid (422 MISSING_REQUIRED_MSG_FIELD). Other fields are ignored. */
function readBodyFields(endpoint: Exclude<Endpoint, "health">, v: unknown): Rec | null {
  if (!isRec(v)) return null;
  const spec = FIELDS[endpoint];
  const out: Rec = {};
  const fits = (k: string, s: string) => k === "payload" || s.length <= MAX_FIELD;
  for (const k of spec.req) {
    const s = v[k];
    if (typeof s !== "string" || s.trim() === "" || !fits(k, s)) return null;
    out[k] = s;
  }
  for (const k of spec.opt) {
    const s = v[k];
    // CodeVASP sends "" and null for fields it has no value for: both read as absent.
    if (s === undefined || s === null || s === "") continue;
    if (typeof s !== "string" || !fits(k, s)) return null;
    out[k] = s;
  }
  if (endpoint === "transfer") {
    if (!isAmount(out.amount as string)) return null;
    if (v.isExceedingThreshold !== undefined && v.isExceedingThreshold !== null && v.isExceedingThreshold !== "") {
      const flag = readThresholdFlag(v.isExceedingThreshold);
      if (flag === null) return null;
      out.isExceedingThreshold = flag;
    }
  }
  if (endpoint === "txid" && v.vout !== undefined && v.vout !== null && v.vout !== "") {
    // `vout` is an output index: text as documented, or the number some samples send.
    if (typeof v.vout === "number" && Number.isInteger(v.vout) && v.vout >= 0) out.vout = String(v.vout);
    else if (typeof v.vout === "string" && /^\d{1,10}$/.test(v.vout)) out.vout = v.vout;
    else return null;
  }
  if (endpoint === "cancel" && out.status !== "canceled") return null;
  return out;
}


/** A base64 Ed25519 public key that is a curve point (it must convert to X25519 to seal the answer). */
function senderKey(value: string | null): string | null {
  const text = value?.trim() ?? "";
  const bytes = base64ToBytes(text);
  if (!bytes || bytes.length !== 32) return null;
  try {
    toX25519Public(bytes);
  } catch {
    return null;
  }
  return text;
}

const sameKey = (a: string, b: string) => {
  const x = base64ToBytes(a.trim());
  const y = base64ToBytes(b);
  return !!x && !!y && x.length === y.length && x.every((v, i) => v === y[i]);
};

export function providerBCallbacks(services: Services) {
  const sources = parseAllowedSources(services.config.env?.PROVIDER_B_ALLOWED_IPS);
  if (sources.invalid.length) services.log("warn", "PROVIDER_B_ALLOWED_IPS: entries that are neither an address nor a CIDR range are ignored", { entries: sources.invalid });
  // The source address is the connection's unless it comes from a trusted proxy (CARAVAN_TRUSTED_PROXIES): a
  // CF-Connecting-IP header from anyone else is the caller's own claim and is never read.
  const clients = ClientAddresses.fromEnv(services.config.env);
  if (clients.invalid.length) services.log("warn", "CARAVAN_TRUSTED_PROXIES: entries that are neither an address nor a CIDR range are ignored", { entries: clients.invalid });
  const flows = new ProviderBFlows(services);

  /**
   * Part 3, Authentication 3: the company's enabled provider_b with credentials for the path's environment, the path's
   * providerId its ID, and credentials usable (formats are checked on use, Part 3 Settings); null otherwise.
   */
  function setup(companyId: string, environment: Environment, providerId: string): Setup | null {
    const s = services.providerSettings;
    if (!s.enabled(companyId, "provider_b") || s.id(companyId, "provider_b") !== providerId) return null;
    const c = s.credentials(companyId, environment, "provider_b");
    if (!c) return null;
    const { vaspEntityId, privateKey, legalName, country } = c;
    if (!vaspEntityId || !ENTITY_ID.test(vaspEntityId) || !legalName?.trim() || !country || !isCountryCode(country)) return null;
    let publicKeyBase64: string;
    try {
      publicKeyBase64 = bytesToBase64(keypairFromSeed(privateKey ?? "").publicKey);
    } catch {
      return null;
    }
    return { companyId, environment, entityId: vaspEntityId, seedBase64: privateKey!.trim(), publicKeyBase64, legalName: legalName.trim(), country: country as CountryCode };
  }

  function send(a: Answer, sealFor?: { senderKey: string; seed: string }): Response {
    const body = { ...a.body };
    if (a.payload !== undefined && sealFor) body.payload = sealPayload(a.payload, sealFor.senderKey, sealFor.seed);
    return json(a.status, body, a.headers);
  }

  async function handle(endpoint: Endpoint, request: Request, params: Record<string, string>): Promise<Response> {
    // `<environment>` is test or live; another value is another path.
    const environment = params.environment;
    if (environment !== "test" && environment !== "live") return trpNotFound();
    try {
      // 1. Source address, before anything else is read (Part 3, Authentication 3; an empty list refuses all).
      if (!sourceAllowed(sources, clients.of(request))) return send(refusal(403, "FORBIDDEN"));
      // 2. 256 KiB, counted while reading, then JSON nested at most 32 deep (its refusal is answered at step 6, in
      // the order Part 3 lists the codes; nothing reads the body before then).
      const read = await readJsonCapped(request, MAX_CALLBACK_BODY);
      if (!read.ok && read.reason === "too_large") return send(refusal(413, "MESSAGE_TOO_LARGE"));
      // 3. The company of the host, and its request budget (shared with /api/v2; Part 3, Callback paths).
      let company: ReturnType<typeof resolveCompany>;
      try {
        company = resolveCompany(request, services.tenancy, services.config.appDomain);
      } catch {
        return trpNotFound();
      }
      try {
        services.limiter.check("company", company.id);
      } catch (e) {
        if (e instanceof ApiError && e.code === "RATE_LIMITED") return send(refusal(429, "RATE_LIMITED", e.headers));
        throw e;
      }
      // 4. The company's provider, enabled, with usable credentials for the path's environment.
      const s = company.status === "active" ? setup(company.id, environment, decodeURIComponent(params.providerId ?? "")) : null;
      if (!s) return send(refusal(503, "VASP_BACKEND_INTERNAL_ERROR"));
      // 5. Sender headers, except on health; a receiver key, when sent, must be ours.
      const h = request.headers;
      const remote = h.get(HEADER.remotePubKey);
      if (endpoint === "health") {
        if (remote !== null && !sameKey(remote, s.publicKeyBase64)) return send(refusal(422, "INVALID_RECEIVER_PUBLIC_KEY"));
        return send({ status: 200, body: {} });
      }
      const origin = h.get(HEADER.origin)?.trim() ?? "";
      const parsed = parseOrigin(origin);
      const key = senderKey(h.get(HEADER.pubKey));
      if (!parsed || !key) return send(refusal(422, "MISSING_REQUIRED_MSG_FIELD"));
      if (remote !== null && !sameKey(remote, s.publicKeyBase64)) return send(refusal(422, "INVALID_RECEIVER_PUBLIC_KEY"));
      // 6. JSON body and its fields.
      if (!read.ok) return send(refusal(422, "MISSING_REQUIRED_MSG_FIELD"));
      const body = readBodyFields(endpoint, read.value);
      if (!body) return send(refusal(422, "MISSING_REQUIRED_MSG_FIELD"));
      // 7. The payload opens with our private key and the sender's public key (libsodium crypto_box).
      let plain: unknown = undefined;
      if (SEALED.has(endpoint)) {
        const opened = openPayload(body.payload as string, key, s.seedBase64);
        if (!opened.ok) return send(refusal(503, "VASP_BACKEND_INTERNAL_ERROR"));
        plain = opened.value;
        delete body.payload;
      }
      const call: Call = { setup: s, sender: { origin, entityId: parsed.entityId, publicKeyBase64: key }, now: services.clock() };
      const sealFor = { senderKey: key, seed: s.seedBase64 };
      switch (endpoint) {
        case "verifyAddress":
          return send(flows.verifyAddress(call, body as never, plain), sealFor);
        case "transfer":
          return send(await flows.transfer(call, body as never, plain), sealFor);
        case "txid":
          return send(await flows.txid(call, body as never), sealFor);
        case "cancel":
          return send(await flows.cancel(call, body as never), sealFor);
        case "status":
          return send(flows.status(call, body as never), sealFor);
        case "verifyTx":
          return send(flows.verifyTx(call, body as never), sealFor);
        case "transferData":
          return send(await flows.transferData(call, body as never, plain), sealFor);
      }
    } catch (e) {
      // Part 3: "processing failed" is 503 VASP_BACKEND_INTERNAL_ERROR; the cause goes to the log only.
      services.log("error", "provider_b callback failed", { endpoint, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e), stack: e instanceof Error ? e.stack : undefined });
      return send(refusal(503, "VASP_BACKEND_INTERNAL_ERROR"));
    }
  }

  const app = new Elysia({ name: "provider_b-callbacks", normalize: false });
  for (const r of ROUTES) {
    const fn = ({ request, params }: { request: Request; params: Record<string, string> }) => handle(r.endpoint, request, params ?? {});
    app.route(r.method, `${PREFIX}/${r.path}`, fn as never, { parse: "none" } as never);
  }
  return app;
}
