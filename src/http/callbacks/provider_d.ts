// provider_d (TRP v3) on the spec's callback path `POST /api/system/trp/provider_d/<environment>/<providerId>`:
// inquiries at our Travel Addresses (`?t=i&ta=<token>`), resolutions of our acknowledged inquiries
// (`?resolution=<token>`), confirmations of incoming transfers we approved (`?confirmation=<token>`); and the
// discoverability routes beneath it (`/version`, `/uptime`, `/extensions`, `/identity`). The client certificate is
// verified and must name a known counterparty before the body is read; then the TRP headers; then the body (256 KiB at
// most), its shape, the token, and the transfer's actor. Every refusal is logged with its reason, never a value.
import { Elysia } from "elysia";
import type { Environment } from "../../domain/types.ts";
import type { Transfer } from "../../ports/transfers.ts";
import type { Repositories } from "../../ports/repositories.ts";
import { ClientAddresses } from "../../adapters/net/client-address.ts";
import { clientCertificate } from "../../adapters/net/client-cert.ts";
import { readBodyCapped, decodeJsonLimited } from "../../adapters/net/read.ts";
import { checkClientCertificate, readProviderDConfig, type ProviderDConfig } from "../../domain/provider_d/settings.ts";
import { acceptsApiVersion, HEADER, isRequestIdentifier, parseExtensions, readInquiry, TRP_API_VERSION } from "../../domain/provider_d/wire.ts";
import { callbackToken, readCallbackToken, readWalletToken } from "../../domain/provider_d/tokens.ts";
import { validatePersons } from "../../domain/ivms101/index.ts";
import { newId } from "../../domain/ids.ts";
import { callbackUrl } from "../../adapters/providers/provider_d/adapter.ts";
import type { ProviderDIncomingOutcome } from "../../actors/provider_d-incoming.ts";
import type { CallbackAnswer } from "../../actors/flows/provider_d.ts";
import { askActor } from "../outcome.ts";
import { resolveCompany } from "../auth.ts";
import { chargeBudget, trpNotFound, type ProviderCallbackDeps } from "./intake.ts";

export const MAX_TRP_BODY = 256 * 1024;
/** How long an incoming transfer stays open for its confirmation (then it expires like any other). */
export const INCOMING_OPEN_MS = 24 * 60 * 60_000;
const PROVIDER_ACTOR = { type: "provider" as const };

export interface ProviderDCallbackDeps extends ProviderCallbackDeps {
  readonly repositories: Pick<Repositories, "transfers" | "wallets">;
  readonly masterKey: { derive(purpose: string): Uint8Array };
  readonly config: { readonly appDomain?: string; readonly env?: Record<string, string | undefined> };
}

interface Scope {
  companyId: string;
  env: Environment;
  providerId: string;
  config: ProviderDConfig;
}

export function providerDCallbacks(services: ProviderDCallbackDeps) {
  const key = services.masterKey.derive("provider_d-tokens");
  const proxies = ClientAddresses.fromEnv(services.config.env);
  const started = services.clock();

  const answer = (status: number, body: unknown, requestId?: string) =>
    new Response(status === 204 ? null : JSON.stringify(body), {
      status,
      headers: { ...(status === 204 ? {} : { "content-type": "application/json" }), [HEADER.version]: TRP_API_VERSION, ...(requestId ? { [HEADER.requestId]: requestId } : {}) },
    });
  const refuse = (status: number, reason: string, message: string, requestId?: string) => {
    services.log("warn", "provider_d request refused", { reason, status });
    return answer(status, { error: message }, requestId);
  };

  /** The company (by host), the path's environment and provider ID, usable settings: else 404 like any unknown path. */
  async function scope(request: Request, params: Record<string, string>): Promise<Scope | Response> {
    const env = params.environment;
    if (env !== "test" && env !== "live") return trpNotFound();
    let companyId: string;
    try {
      companyId = (await resolveCompany(request, services.tenancy, services.config.appDomain)).id;
    } catch {
      return trpNotFound();
    }
    const s = services.providerSettings;
    if ((await s.id(companyId, "provider_d")) !== params.providerId) return trpNotFound();
    if (!(await s.enabled(companyId, "provider_d"))) return refuse(503, "disabled", "provider_d is not enabled");
    const creds = await s.credentials(companyId, env, "provider_d");
    const read = creds ? readProviderDConfig(creds, services.clock()) : null;
    if (!read?.ok) return refuse(503, "not_configured", "provider_d is not configured");
    return { companyId, env, providerId: params.providerId, config: read.config };
  }

  async function post(request: Request, params: Record<string, string>): Promise<Response> {
    const sc = await scope(request, params);
    if (sc instanceof Response) return sc;
    const now = services.clock();
    // 1. The client certificate, before anything else of the request is read.
    const cert = clientCertificate(request, proxies);
    if (!cert.ok) return refuse(401, `client_certificate_${cert.reason}`, "a client certificate is required (mutual TLS)");
    const who = checkClientCertificate(sc.config, cert.certificate, now, cert.intermediates);
    if (!who.ok) return refuse(who.reason === "unknown_counterparty" ? 403 : 401, `client_certificate_${who.reason}`, who.reason === "unknown_counterparty" ? "the certificate names no known counterparty" : "the client certificate is not accepted");
    // 2. The TRP headers.
    const version = request.headers.get(HEADER.version);
    if (!acceptsApiVersion(version)) return refuse(400, "api_version", `unsupported api-version; supported: ${TRP_API_VERSION}, 3.x`);
    const requestId = request.headers.get(HEADER.requestId)?.trim() ?? "";
    if (!isRequestIdentifier(requestId)) return refuse(400, "request_identifier", "request-identifier must be a UUID");
    const ct = request.headers.get("content-type");
    if (ct !== null && !/^application\/json\s*(;|$)/i.test(ct.trim())) return refuse(415, "content_type", "content-type must be application/json", requestId);
    // 3. What the URL names, then the budget, then the body.
    const q = new URL(request.url).searchParams;
    const over = chargeBudget(services, sc.companyId, (headers) => new Response(JSON.stringify({ error: "Rate limit exceeded" }), { status: 429, headers: { "content-type": "application/json", ...(headers ?? {}) } }));
    if (over) return over;
    const bytes = await readBodyCapped(request, MAX_TRP_BODY);
    if (bytes === null) return refuse(413, "body_too_large", `the body is over ${MAX_TRP_BODY} bytes`, requestId);
    const parsed = bytes.byteLength ? decodeJsonLimited(bytes) : { ok: false as const };
    if (!parsed.ok) return refuse(400, "body_not_json", "the body is not JSON", requestId);
    const body = parsed.value;
    const fingerprint = who.fingerprint;
    if (q.get("resolution") !== null || q.get("confirmation") !== null) {
      const kind = q.get("resolution") !== null ? "resolution" : "confirmation";
      const transferId = readCallbackToken(key, kind, sc.companyId, q.get(kind) ?? "");
      const t = transferId ? await services.repositories.transfers.get(sc.companyId, sc.env, transferId) : undefined;
      if (!t || t.protocol !== "provider_d") return refuse(404, "unknown_token", "unknown callback", requestId);
      return tell(t, { kind, requestId, fingerprint, body }, requestId);
    }
    if (q.get("t") === "i" && q.get("ta") !== null) return inquiry(sc, q.get("ta")!, requestId, version!, parseExtensions(request.headers.get(HEADER.extensions)), fingerprint, who.counterparty, body, now);
    return refuse(404, "unknown_route", "not a TRP route of this endpoint", requestId);
  }

  async function tell(t: Transfer, event: unknown, requestId: string): Promise<Response> {
    const out = (await askActor<CallbackAnswer>(services.runtime, `transfer:${t.id}`, { type: "providerEvent", provider: "provider_d", event, companyId: t.companyId, environment: t.environment, actor: PROVIDER_ACTOR })) as unknown as CallbackAnswer | { ok: false; code: string };
    if ("status" in out && typeof out.status === "number") return answer(out.status, out.body ?? {}, requestId);
    services.log("warn", "provider_d request not handled", { code: (out as { code?: string }).code ?? "unknown" });
    return answer(503, { error: "temporarily unavailable" }, requestId);
  }

  async function inquiry(sc: Scope, token: string, requestId: string, version: string, extensions: string[], fingerprint: string, cp: { name: string; lei: string | null }, body: unknown, now: number): Promise<Response> {
    const tok = readWalletToken(key, sc.companyId, sc.env, token, now);
    if (!tok.ok) return refuse(404, `travel_address_${tok.reason}`, "unknown or expired Travel Address", requestId);
    const wallet = await services.repositories.wallets.get(sc.companyId, sc.env, tok.walletId);
    if (!wallet || !wallet.verified) return refuse(404, "travel_address_wallet", "unknown or expired Travel Address", requestId);
    const r = readInquiry(body);
    if (!r.ok) {
      services.log("warn", "provider_d inquiry not understood", { path: r.path });
      return answer(422, { error: `not understood (${r.path || "body"})` }, requestId);
    }
    const inq = r.value;
    if (validatePersons(inq.originator.persons).length || (inq.beneficiary && validatePersons(inq.beneficiary.persons).length)) {
      services.log("warn", "provider_d inquiry not understood", { path: "IVMS101" });
      return answer(422, { error: "not understood (IVMS101)" }, requestId);
    }
    const asset = inq.asset.slip0044 === undefined ? undefined : services.catalog.assets.find((a) => a.network === wallet.network && a.id.endsWith(`/slip44:${inq.asset.slip0044}`));
    if (!asset) return answer(200, { rejected: "asset not supported for this address" }, requestId);
    const externalId = `provider_d:${fingerprint.slice(0, 16)}:${requestId}`;
    const id = newId("trf", now);
    const out = await askActor<ProviderDIncomingOutcome>(services.runtime, `customer:${wallet.customerId}`, {
      type: "receiveProviderDIncoming",
      companyId: sc.companyId,
      environment: sc.env,
      actor: PROVIDER_ACTOR,
      transfer: {
        id,
        externalId,
        requestId,
        walletId: wallet.id,
        asset: asset.aliases[0] ?? asset.name,
        assetId: asset.id,
        amount: inq.amount,
        network: wallet.network,
        originatorAddress: inq.originator.accountNumber[0] ?? null,
        originatorPersons: inq.originator.persons,
        beneficiaryPersons: inq.beneficiary?.persons ?? [],
        originatorVasp: { id: inq.originatingVasp?.lei ?? cp.lei ?? `trp:${fingerprint.slice(0, 16)}`, name: inq.originatingVasp?.name ?? cp.name },
        beneficiaryVasp: { id: sc.config.lei, name: sc.config.legalName },
        expiresAt: new Date(now + INCOMING_OPEN_MS).toISOString(),
      },
    });
    if (!out.ok) {
      services.log("warn", "provider_d inquiry not handled", { code: out.code });
      return answer(503, { error: "temporarily unavailable" }, requestId);
    }
    const d = out.data;
    if (d.transfer === null) {
      services.log("info", "provider_d inquiry rejected", { reason: (d as { refused: string }).refused });
      return answer(200, { rejected: "The beneficiary VASP declined the transfer" }, requestId);
    }
    if (!d.created) return tell(d.transfer, { kind: "incomingAgain" }, requestId);
    const confirm = callbackUrl(sc.config, sc.env, sc.providerId, "confirmation", callbackToken(key, "confirmation", sc.companyId, d.transfer.id));
    const address = d.transfer.beneficiaryAddress.replace(/\?.*$/, "");
    return tell(d.transfer, { kind: "incoming", requestId, apiVersion: version, extensions, fingerprint, callback: inq.callback, approveWith: { address, callback: confirm } }, requestId);
  }

  /** Discoverability (TRP extension): public facts of our endpoint, beneath the provider_d path. */
  async function discover(request: Request, params: Record<string, string>, what: string): Promise<Response> {
    const sc = await scope(request, params);
    if (sc instanceof Response) return sc;
    switch (what) {
      case "version":
        return answer(200, { version: TRP_API_VERSION, vendor: "Caravan" });
      case "uptime":
        return new Response(String(Math.floor((services.clock() - started) / 1000)), { status: 200, headers: { "content-type": "text/plain", [HEADER.version]: TRP_API_VERSION } });
      case "extensions":
        return answer(200, { required: [], supported: [] });
      case "identity":
        return answer(200, { name: sc.config.legalName, lei: sc.config.lei, x509: sc.config.certificatePem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)![0] + "\n" });
      default:
        return trpNotFound();
    }
  }

  const base = "/api/system/trp/provider_d/:environment/:providerId";
  return new Elysia({ name: "provider_d-callbacks", normalize: false })
    .post(base, (({ request, params }: { request: Request; params: Record<string, string> }) => guarded(() => post(request, params))) as never, { parse: "none" } as never)
    .get(`${base}/:what`, (({ request, params }: { request: Request; params: Record<string, string> }) => guarded(async () => discover(request, params, params.what))) as never);

  async function guarded(run: () => Promise<Response>): Promise<Response> {
    try {
      return await run();
    } catch (e) {
      services.log("error", "provider_d callback failed", { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
      return answer(500, { error: "internal error" });
    }
  }
}
