// provider_e callbacks (Part 3 "provider_e callbacks", Authentication 4): size, company, budget, provider, shape,
// signature with the key the table names, the provider's signed status, then the transfer's actor decides.
import { Elysia } from "elysia";
import type { Services } from "../../services.ts";
import type { Environment } from "../../domain/types.ts";
import { ApiError } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { validatePersons, type Person } from "../../domain/ivms101/index.ts";
import { incomingExpiry, tokenMatches } from "../../domain/provider_e/rules.ts";
import { readBodyCapped } from "../../adapters/net/read.ts";
import { json } from "../kit.ts";
import { resolveCompany } from "../auth.ts";
import { askActor } from "../outcome.ts";
import { trpNotFound } from "./provider_b.ts";
import { Transfers, type TransferRow } from "../../adapters/storage/repos/transfers.ts";
import { Wallets } from "../../adapters/storage/repos/wallets.ts";
import { Customers } from "../../adapters/storage/repos/customers.ts";
import { decryptObject, signObject, verifyObject } from "../../adapters/providers/provider_e/crypto.ts";
import { clientOf, credsOf, directoryKey, readSignedStatus, type ProviderEOptions } from "../../adapters/providers/provider_e/adapter.ts";
import { orderedPermission, PATH, readAddressQuestion, readPermissionRequestData, readPrivateInfo, TRANSFER_ID, isRec } from "../../adapters/providers/provider_e/wire.ts";
import type { AdapterContext } from "../../adapters/providers/types.ts";
import type { CallbackAnswer } from "../../actors/flows/provider_e.ts";
import type { ProviderEIncomingOutcome } from "../../actors/provider_e-incoming.ts";

/** Part 3, Limits: provider_e callback body 2 MiB. */
export const MAX_CALLBACK_BODY = 2 * 1024 * 1024;
export const EVENTS = ["permission-request", "address-validation", "txid", "cancel", "cdd", "permission"] as const;
type Event = (typeof EVENTS)[number];
const PROVIDER_ACTOR = { type: "provider" as const };

const err = (status: number, error: string): CallbackAnswer => ({ status, body: { error } });
const OK: CallbackAnswer = { status: 200, body: { status: "OK" } };
const send = (a: CallbackAnswer) => json(a.status, a.body);
const fromRead = (r: { code: string; status?: number }) => (r.status && r.status !== 200 ? err(r.status, `HTTP_${r.status}`) : err(503, r.code));

export function providerECallbacks(services: Services, options: () => ProviderEOptions | null) {
  function context(companyId: string, env: Environment, providerId: string): AdapterContext | null {
    const s = services.providerSettings;
    if (!s.enabled(companyId, "provider_e") || s.id(companyId, "provider_e") !== providerId) return null;
    return services.providers.context(companyId, env, "provider_e", services.clock());
  }

  async function tellTransfer(t: TransferRow, event: unknown): Promise<CallbackAnswer> {
    // The transfer actor replies with the flow's answer itself, or a refusal (an Outcome) when it cannot run it.
    const out = (await askActor<CallbackAnswer>(services.runtime, `transfer:${t.id}`, { type: "providerEvent", provider: "provider_e", event, companyId: t.company_id, environment: t.environment, actor: PROVIDER_ACTOR })) as unknown as CallbackAnswer | { ok: false; code: string };
    if ("status" in out && typeof out.status === "number" && "body" in out) return out;
    return err(503, (out as { code?: string }).code ?? "CALLBACK_FAILED");
  }

  const byProviderId = (companyId: string, env: Environment, id: string) =>
    services.storage.stmt("SELECT * FROM transfers WHERE company_id = ? AND environment = ? AND provider_external_id = ? AND protocol = 'provider_e'").get(companyId, env, id) as TransferRow | null | undefined;

  /** Every address a verified wallet on the network of an active customer with a verified identity. */
  function ownsAll(companyId: string, env: Environment, network: string | null, addresses: string[]): boolean {
    const wallets = new Wallets(services.storage);
    const customers = new Customers(services.storage);
    return addresses.every((a) => {
      const w = wallets.byAddress(companyId, env, a);
      if (!w || w.verified !== 1 || (network !== null && w.network !== network)) return false;
      const c = customers.get(companyId, env, w.customer_id);
      return !!c && c.status === "active" && c.identity_status === "verified";
    });
  }

  async function addressValidation(o: ProviderEOptions, a: AdapterContext, env: Environment, companyId: string, body: unknown): Promise<CallbackAnswer> {
    const q = readAddressQuestion(body);
    const c = credsOf(a);
    if (!q) return err(400, "Invalid callback");
    if (!verifyObject(body, c.bridgePublicKey)) return err(401, "INVALID_SIGNATURE");
    if (q.vasp_code !== c.vaspCode) return err(400, "UNKNOWN_VASP");
    const cur = await clientOf(o.baseUrl, env, a).currencies();
    const currency = cur.ok ? cur.body.find((x) => x.currency_id === q.currency_id) : undefined;
    const isValid = !!currency && ownsAll(companyId, env, currency.platform ?? null, q.addrs.map((x) => x.address));
    return { status: 200, body: signObject({ vasp_code: c.vaspCode, currency_id: q.currency_id, addrs: q.addrs, is_valid: isValid }, c.privateKey) };
  }

  async function permissionRequest(o: ProviderEOptions, a: AdapterContext, env: Environment, companyId: string, body: unknown): Promise<CallbackAnswer> {
    if (!isRec(body) || typeof body.transfer_id !== "string" || !TRANSFER_ID.test(body.transfer_id)) return err(400, "Invalid callback");
    const data = readPermissionRequestData(body.data);
    if (!data) return err(400, "Invalid callback");
    const c = credsOf(a);
    const tx = data.transaction;
    const key = await directoryKey(o.baseUrl, env, a, tx.originator_vasp_code);
    if (!key.ok) return key.code === "UNKNOWN_PEER" ? err(401, "INVALID_SIGNATURE") : fromRead(key);
    if (!verifyObject(data, key.body.key)) return err(401, "INVALID_SIGNATURE");
    const transferId = body.transfer_id;
    const existing = byProviderId(companyId, env, transferId);
    if (existing) {
      const first = (JSON.parse(existing.history) as { detail?: { requestSignature?: string } }[])[0]?.detail?.requestSignature;
      return first === data.signature ? OK : err(400, "INCOMING_REPLAY_MISMATCH");
    }
    const client = clientOf(o.baseUrl, env, a);
    const st = await readSignedStatus(client, c, transferId);
    if (!st.ok) return st.code === "STATUS_SIGNATURE_INVALID" ? err(401, "INVALID_SIGNATURE") : fromRead(st);
    const d = st.body.transferData;
    if (d.permission_request_data_signature !== data.signature) return err(400, "INCOMING_REPLAY_MISMATCH");
    if (tx.beneficiary_vasp_code !== c.vaspCode) return err(400, "UNSUPPORTED_TRANSFER");
    if (tx.originator_addrs.length !== 1 || tx.beneficiary_addrs.length !== 1 || tx.originator_addrs_extra !== undefined) return err(400, "UNSUPPORTED_TRANSFER");
    const now = services.clock();
    const dated = Date.parse(data.data_dt);
    if (!Number.isFinite(dated)) return err(400, "Invalid callback");
    const expiry = incomingExpiry(data.expire_date, d.expire_date, dated, now);
    if (expiry === null) return err(400, "TRANSFER_EXPIRED");
    const info = readPrivateInfo(decryptObject(data.private_info, c.privateKey));
    if (!info) return err(400, "UNDECRYPTABLE_PAYLOAD");
    const originatorPersons = info.originator.originatorPersons as Person[];
    const beneficiaryPersons = info.beneficiary.beneficiaryPersons as Person[];
    if (validatePersons(originatorPersons).length || validatePersons(beneficiaryPersons).length || originatorPersons.length === 0) return err(400, "INVALID_PEER_IDENTITY");
    const cur = await client.currencies();
    if (!cur.ok) return fromRead(cur);
    const currency = cur.body.find((x) => x.currency_id === tx.transaction_currency);
    const asset = currency ? services.catalog.assets.find((x) => x.network === currency.platform && x.aliases.includes(currency.currency_symbol.toUpperCase())) : undefined;
    if (!currency || !asset) return err(400, "UNSUPPORTED_TRANSFER");
    const address = tx.beneficiary_addrs[0];
    const wallet = new Wallets(services.storage).byAddress(companyId, env, address);
    if (!wallet || wallet.network !== currency.platform) {
      // No wallet at all: nothing to create; rejected at the provider (BVRC001), signed.
      const perm = signObject(orderedPermission({ transfer_id: transferId, permission_status: "REJECTED", reject_code: "BVRC001", reject_message: "The beneficiary address is not known" }) as Record<string, unknown>, c.privateKey);
      const r = await client.post(PATH.permission, perm);
      return r.ok ? OK : fromRead(r);
    }
    const out = await askActor<ProviderEIncomingOutcome>(services.runtime, `customer:${wallet.customer_id}`, {
      type: "receiveProviderEIncoming",
      companyId,
      environment: env,
      actor: PROVIDER_ACTOR,
      transfer: {
        id: newId("trf", now),
        providerTransferId: transferId,
        requestSignature: data.signature,
        walletId: wallet.id,
        asset: asset.aliases[0] ?? currency.currency_symbol,
        assetId: asset.id,
        amount: tx.amount,
        network: currency.platform,
        beneficiaryAddress: wallet.address,
        originatorAddress: tx.originator_addrs[0],
        originatorPersons,
        beneficiaryPersons,
        originatorVasp: { id: tx.originator_vasp_code, name: key.body.name || null },
        beneficiaryVasp: { id: c.vaspCode, name: null },
        expiresAt: new Date(expiry).toISOString(),
      },
    });
    if (!out.ok) return err(503, out.code);
    if (out.data.replayMismatch) return err(400, "INCOMING_REPLAY_MISMATCH");
    if (!out.data.created) return OK;
    return tellTransfer(out.data.transfer, { kind: "incoming", refuse: out.data.refuse });
  }

  async function handle(event: Event, request: Request, params: Record<string, string>): Promise<Response> {
    const environment = params.environment;
    if (environment !== "test" && environment !== "live") return trpNotFound();
    try {
      const bytes = await readBodyCapped(request, MAX_CALLBACK_BODY);
      if (bytes === null) return json(413, { error: "Body too large" });
      let company: ReturnType<typeof resolveCompany>;
      try {
        company = resolveCompany(request, services.tenancy, services.config.appDomain);
      } catch {
        return trpNotFound();
      }
      try {
        services.limiter.check("company", company.id);
      } catch (e) {
        if (e instanceof ApiError && e.code === "RATE_LIMITED") return json(429, { error: "Rate limit exceeded", code: "RATE_LIMITED" }, e.headers);
        throw e;
      }
      const o = options();
      const a = company.status === "active" && o ? context(company.id, environment, decodeURIComponent(params.providerId ?? "")) : null;
      if (!a || !o) return json(503, { error: "Provider unavailable" });
      let body: unknown;
      try {
        body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
      } catch {
        return send(err(400, "Invalid callback"));
      }
      if (!isRec(body)) return send(err(400, "Invalid callback"));
      switch (event) {
        case "address-validation":
          return send(await addressValidation(o, a, environment, company.id, body));
        case "permission-request":
          return send(await permissionRequest(o, a, environment, company.id, body));
        case "permission": {
          const url = new URL(request.url);
          const id = url.searchParams.get("transfer") ?? "";
          const token = url.searchParams.get("token") ?? "";
          const t = new Transfers(services.storage).get(company.id, environment, id);
          if (!t || t.protocol !== "provider_e" || !tokenMatches(credsOf(a).privateKey, id, token)) return send(err(404, "UNKNOWN_TRANSFER"));
          return send(await tellTransfer(t, { kind: "permission", body }));
        }
        case "txid":
        case "cancel": {
          const id = body.transfer_id;
          if (typeof id !== "string" || !TRANSFER_ID.test(id)) return send(err(400, "Invalid callback"));
          const t = byProviderId(company.id, environment, id);
          if (!t) return send(err(404, "UNKNOWN_TRANSFER"));
          return send(await tellTransfer(t, { kind: event, body }));
        }
        case "cdd": {
          const id = body.transfer_id;
          if (typeof id !== "string" || !TRANSFER_ID.test(id)) return send(err(400, "Invalid callback"));
          const t = byProviderId(company.id, environment, id);
          if (!t) return send(err(404, "UNKNOWN_TRANSFER"));
          // Signed with the counterparty's key kept with the transfer and bound to the signed status: the flow checks both.
          return send(await tellTransfer(t, { kind: "cdd", body }));
        }
      }
    } catch (e) {
      services.log("error", "provider_e callback failed", { event, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e), stack: e instanceof Error ? e.stack : undefined });
      return json(503, { error: "CALLBACK_FAILED" });
    }
  }

  const app = new Elysia({ name: "provider_e-callbacks", normalize: false });
  for (const event of EVENTS) {
    const fn = ({ request, params }: { request: Request; params: Record<string, string> }) => handle(event, request, params ?? {});
    app.post(`/api/system/trp/provider_e/:environment/:providerId/${event}`, fn as never, { parse: "none" } as never);
  }
  return app;
}
