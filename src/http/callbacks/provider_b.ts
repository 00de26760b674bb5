// provider_b callbacks (Part 3 "provider_b callbacks", Authentication 3), through the shared intake: source address,
// size, company, budget, provider, headers and body, the sealed payload, then each endpoint's flow.
import { readJsonCapped, type JsonRead } from "../../adapters/net/read.ts";
import { ClientAddresses } from "../../adapters/net/client-address.ts";
import { PROVIDER_B_CALLBACKS, type ProviderBCallback } from "../../domain/provider_b/endpoints.ts";
import { Elysia } from "elysia";
import type { ProviderSettingsRepository } from "../../ports/provider-settings.ts";
import type { Environment } from "../../domain/types.ts";
import { isCountryCode } from "../../domain/ivms101/index.ts";
import type { CountryCode } from "../../domain/ivms101/types.ts";
import { parseAllowedSources, sourceAllowed } from "../../domain/provider_b/sources.ts";
import { base64ToBytes, bytesToBase64, keypairFromSeed, openPayload, sealPayload, toX25519Public } from "../../adapters/providers/provider_b/crypto.ts";
import { ENTITY_ID, HEADER, parseOrigin, readThresholdFlag } from "../../adapters/providers/provider_b/wire.ts";
import { json } from "../kit.ts";
import { budgetStep, companyStep, runIntake, type Intake, type IntakeBase, type IntakeDeps } from "./intake.ts";
import { ProviderBFlows, isAmount, refusal, type Answer, type Call, type ProviderBFlowDeps, type Setup } from "../../actors/flows/provider_b.ts";

/** What provider_b's callbacks need: the intake's, the flows', the company's settings and the environment. */
export type ProviderBCallbackDeps = IntakeDeps &
  ProviderBFlowDeps & { readonly providerSettings: ProviderSettingsRepository; readonly config: { readonly appDomain?: string; readonly env?: Record<string, string | undefined> } };

/** Part 3, Limits: "provider_b callback body 256 KiB". */
export const MAX_CALLBACK_BODY = 256 * 1024;
/** Longest plain text field taken (IDs, codes, addresses); `payload` is bounded by the body limit only. */
const MAX_FIELD = 1024;

export { TRP_NOT_FOUND, trpNotFound } from "./intake.ts";

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

/** What the intake has read so far. */
interface Intaken extends IntakeBase {
  readonly endpoint: Endpoint;
  read?: JsonRead;
  setup?: Setup;
  body?: Rec;
  call?: Call;
  plain?: unknown;
}

export function providerBCallbacks(services: ProviderBCallbackDeps) {
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
  async function setup(companyId: string, environment: Environment, providerId: string): Promise<Setup | null> {
    const s = services.providerSettings;
    if (!(await s.enabled(companyId, "provider_b")) || (await s.id(companyId, "provider_b")) !== providerId) return null;
    const c = await s.credentials(companyId, environment, "provider_b");
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

  /** Part 3, provider_b callbacks: each endpoint and the flow that answers it (a health check answers at the shape step). */
  const HANDLERS: Record<Exclude<Endpoint, "health">, (c: Call, body: Rec, plain: unknown) => Answer | Promise<Answer>> = {
    verifyAddress: (c, body, plain) => flows.verifyAddress(c, body as never, plain),
    transfer: (c, body, plain) => flows.transfer(c, body as never, plain),
    txid: (c, body) => flows.txid(c, body as never),
    cancel: (c, body) => flows.cancel(c, body as never),
    status: (c, body) => flows.status(c, body as never),
    verifyTx: (c, body) => flows.verifyTx(c, body as never),
    transferData: (c, body, plain) => flows.transferData(c, body as never, plain),
  };

  // The callback's intake (Part 3, Authentication 3): source, size, company, budget, provider, headers and body,
  // the sealed payload (opened only with the sender's key: its signature), then the endpoint's flow.
  const intake: Intake<Intaken> = {
    provider: "provider_b",
    // Part 3: "processing failed" is 503 VASP_BACKEND_INTERNAL_ERROR; the cause goes to the log only.
    failed: () => send(refusal(503, "VASP_BACKEND_INTERNAL_ERROR")),
    logDetail: (c) => ({ endpoint: c.endpoint }),
    steps: [
      // Source address, before anything else is read (an empty list refuses all).
      ["source", (c) => (sourceAllowed(sources, clients.of(c.request)) ? null : send(refusal(403, "FORBIDDEN")))],
      [
        "size",
        // 256 KiB, counted while reading, then JSON nested at most 32 deep (its refusal is answered at the shape
        // step, in the order Part 3 lists the codes; nothing reads the body before then).
        async (c) => {
          c.read = await readJsonCapped(c.request, MAX_CALLBACK_BODY);
          if (!c.read.ok && c.read.reason === "too_large") return send(refusal(413, "MESSAGE_TOO_LARGE"));
        },
      ],
      // The company of the host, and its request budget (shared with /api/v2; Part 3, Callback paths).
      ["company", companyStep(services)],
      ["budget", budgetStep(services, (headers) => send(refusal(429, "RATE_LIMITED", headers)))],
      [
        "provider",
        // The company's provider, enabled, with usable credentials for the path's environment.
        async (c) => {
          const s = c.company!.status === "active" ? await setup(c.company!.id, c.environment, decodeURIComponent(c.params.providerId ?? "")) : null;
          if (!s) return send(refusal(503, "VASP_BACKEND_INTERNAL_ERROR"));
          c.setup = s;
        },
      ],
      [
        "shape",
        // Sender headers, except on health; a receiver key, when sent, must be ours. Then the JSON body and its fields.
        (c) => {
          const s = c.setup!;
          const h = c.request.headers;
          const remote = h.get(HEADER.remotePubKey);
          if (c.endpoint === "health") {
            if (remote !== null && !sameKey(remote, s.publicKeyBase64)) return send(refusal(422, "INVALID_RECEIVER_PUBLIC_KEY"));
            return send({ status: 200, body: {} });
          }
          const origin = h.get(HEADER.origin)?.trim() ?? "";
          const parsed = parseOrigin(origin);
          const key = senderKey(h.get(HEADER.pubKey));
          if (!parsed || !key) return send(refusal(422, "MISSING_REQUIRED_MSG_FIELD"));
          if (remote !== null && !sameKey(remote, s.publicKeyBase64)) return send(refusal(422, "INVALID_RECEIVER_PUBLIC_KEY"));
          if (!c.read!.ok) return send(refusal(422, "MISSING_REQUIRED_MSG_FIELD"));
          const body = readBodyFields(c.endpoint, c.read!.value);
          if (!body) return send(refusal(422, "MISSING_REQUIRED_MSG_FIELD"));
          c.body = body;
          c.call = { setup: s, sender: { origin, entityId: parsed.entityId, publicKeyBase64: key }, now: services.clock() };
        },
      ],
      [
        "signature",
        // The payload opens with our private key and the sender's public key (libsodium crypto_box).
        (c) => {
          if (!SEALED.has(c.endpoint)) return;
          const opened = openPayload(c.body!.payload as string, c.call!.sender.publicKeyBase64, c.setup!.seedBase64);
          if (!opened.ok) return send(refusal(503, "VASP_BACKEND_INTERNAL_ERROR"));
          c.plain = opened.value;
          delete c.body!.payload;
        },
      ],
      [
        "actor",
        async (c) => {
          const sealFor = { senderKey: c.call!.sender.publicKeyBase64, seed: c.setup!.seedBase64 };
          return send(await HANDLERS[c.endpoint as Exclude<Endpoint, "health">](c.call!, c.body!, c.plain), sealFor);
        },
      ],
    ],
  };

  const app = new Elysia({ name: "provider_b-callbacks", normalize: false });
  for (const r of ROUTES) {
    const fn = ({ request, params }: { request: Request; params: Record<string, string> }) => runIntake(services, intake, request, params ?? {}, (b) => ({ ...b, endpoint: r.endpoint }));
    app.route(r.method, `${PREFIX}/${r.path}`, fn as never, { parse: "none" } as never);
  }
  return app;
}
