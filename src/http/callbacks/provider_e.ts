// provider_e callbacks (Part 3 "provider_e callbacks", Authentication 4). Cheap checks before expensive ones: the
// 2 MiB cap, the company, the provider's ID and credentials, a JSON parse with bounded nesting, the event's shape; only
// then the signature (canonicalisation) with the key the table names, and only an authenticated callback is charged
// to the company's request budget; then the provider's signed status, decryption, and the transfer's actor decides.
import { Elysia } from "elysia";
import type { Repositories } from "../../ports/repositories.ts";
import type { Transfer } from "../../ports/transfers.ts";
import type { ProviderRegistry } from "../../adapters/providers/registry.ts";
import type { Environment } from "../../domain/types.ts";
import { newId } from "../../domain/ids.ts";
import { validatePersons } from "../../domain/ivms101/index.ts";
import { incomingExpiry, tokenMatches } from "../../domain/provider_e/rules.ts";
import { readPrivateInfo } from "../../domain/provider_e/ivms.ts";
import { parseJsonLimited, readBodyCapped } from "../../adapters/net/read.ts";
import { json } from "../kit.ts";
import { hasVerifiedIdentity } from "../../domain/identity.ts";
import { chargeBudget, companyStep, runIntake, type Intake, type IntakeBase, type ProviderCallbackDeps } from "./intake.ts";
import { askActor } from "../outcome.ts";
import { decryptObject, signObject, verifyObject } from "../../adapters/providers/provider_e/crypto.ts";
import { clientOf, credsOf, directoryKey, readSignedStatus, type ProviderEOptions } from "../../adapters/providers/provider_e/adapter.ts";
import { hasExtra, isRec, readAddressQuestion, readPermission, readPermissionRequestData, TRANSFER_ID } from "../../adapters/providers/provider_e/wire.ts";
import type { AdapterContext } from "../../adapters/providers/types.ts";
import type { CallbackAnswer } from "../../actors/flows/provider_e.ts";
import type { ProviderEIncomingOutcome } from "../../actors/provider_e-incoming.ts";

/** Part 3, Limits: provider_e callback body 2 MiB. */
export const MAX_CALLBACK_BODY = 2 * 1024 * 1024;
export const EVENTS = ["permission-request", "address-validation", "txid", "cancel", "cdd", "permission"] as const;
type Event = (typeof EVENTS)[number];
const PROVIDER_ACTOR = { type: "provider" as const };
/** The customer actor that records incoming transfers to an address no customer owns (created `rejected`, BVRC001). */
export const UNOWNED_ACTOR = "customer:unowned";

type Answer = CallbackAnswer & { headers?: Record<string, string> };
const err = (status: number, error: string): Answer => ({ status, body: { error } });
const OK: Answer = { status: 200, body: { status: "OK" } };
const send = (a: Answer) => json(a.status, a.body, a.headers);
const fromRead = (r: { code: string; status?: number }) => (r.status && r.status !== 200 ? err(r.status, `HTTP_${r.status}`) : err(503, r.code));

interface Scope {
  o: ProviderEOptions;
  a: AdapterContext;
  env: Environment;
  companyId: string;
}

/** What the intake has read so far. */
interface Intaken extends IntakeBase {
  readonly event: Event;
  bytes?: Uint8Array;
  scope?: Scope;
  body?: Record<string, unknown>;
}

/** What provider_e's callbacks need besides the intake's. */
export interface ProviderECallbackDeps extends ProviderCallbackDeps {
  readonly repositories: Pick<Repositories, "transfers" | "wallets" | "customers">;
  readonly providers: ProviderRegistry;
}

export function providerECallbacks(services: ProviderECallbackDeps, options: () => ProviderEOptions | null) {
  async function context(companyId: string, env: Environment, providerId: string): Promise<AdapterContext | null> {
    const s = services.providerSettings;
    if (!(await s.enabled(companyId, "provider_e")) || (await s.id(companyId, "provider_e")) !== providerId) return null;
    return services.providers.context(companyId, env, "provider_e", services.clock());
  }

  /** A message we do not understand: logged with the event and the field path (never a value), refused as the table says. */
  function invalid(event: Event, path: string): Answer {
    services.log("warn", "provider_e callback refused: not the event's shape", { event, path });
    return err(400, "Invalid callback");
  }

  /** Part 3: accepted (authenticated) callbacks count toward the company's request budget; over it, 429. */
  function charge(companyId: string): Answer | null {
    return chargeBudget(services, companyId, (headers): Answer => ({ status: 429, body: { error: "Rate limit exceeded", code: "RATE_LIMITED" }, headers }));
  }

  async function tellTransfer(t: Transfer, event: unknown): Promise<Answer> {
    // The transfer actor replies with the flow's answer itself, or a refusal (an Outcome) when it cannot run it.
    const out = (await askActor<CallbackAnswer>(services.runtime, `transfer:${t.id}`, { type: "providerEvent", provider: "provider_e", event, companyId: t.companyId, environment: t.environment, actor: PROVIDER_ACTOR })) as unknown as CallbackAnswer | { ok: false; code: string };
    if ("status" in out && typeof out.status === "number" && "body" in out) return out;
    return err(503, (out as { code?: string }).code ?? "CALLBACK_FAILED");
  }

  const byProviderId = (companyId: string, env: Environment, id: string) =>
    services.repositories.transfers.byProviderReference(companyId, env, "provider_e", id);

  /** Every address a verified wallet on the network of an active customer with a verified identity. */
  async function ownsAll(companyId: string, env: Environment, network: string | null, addresses: string[]): Promise<boolean> {
    if (network === null) return false;
    const wallets = services.repositories.wallets;
    const customers = services.repositories.customers;
    for (const a of addresses) {
      const w = await wallets.byAddress(companyId, env, a);
      if (!w || !w.verified || w.network !== network) return false;
      if (!hasVerifiedIdentity(await customers.get(companyId, env, w.customerId))) return false;
    }
    return true;
  }

  /**
   * The transfer's counterparty signed this body (txid, cancel, cdd, permission): checked here with its directory key
   * before the budget is charged; the flow checks it again with the key it keeps.
   */
  async function signedByCounterparty(s: Scope, t: Transfer, body: Record<string, unknown>): Promise<Answer | null> {
    const code = t.direction === "outgoing" ? t.beneficiaryVaspId : t.originatorVaspId;
    if (!code) return err(503, "UNKNOWN_PEER");
    const key = await directoryKey(s.o.baseUrl, s.env, s.a, code);
    if (!key.ok) return key.code === "UNKNOWN_PEER" ? err(401, "INVALID_SIGNATURE") : fromRead(key);
    return verifyObject(body, key.body.key) ? null : err(401, "INVALID_SIGNATURE");
  }

  async function addressValidation(s: Scope, body: Record<string, unknown>): Promise<Answer> {
    // Only what answering needs is read (vasp_code, currency_id, addrs, signature); other fields are tolerated.
    const q = readAddressQuestion(body);
    if (!q.ok) return invalid("address-validation", q.path);
    const c = credsOf(s.a);
    if (!verifyObject(body, c.bridgePublicKey)) return err(401, "INVALID_SIGNATURE");
    const over = charge(s.companyId);
    if (over) return over;
    if (q.value.vasp_code !== c.vaspCode) return err(400, "UNKNOWN_VASP");
    const cur = await clientOf(s.o.baseUrl, s.env, s.a).currencies();
    const currency = cur.ok ? cur.body.find((x) => x.currency_id === q.value.currency_id) : undefined;
    const isValid = !!currency && (await ownsAll(s.companyId, s.env, currency.network, q.value.addrs.map((x) => x.address)));
    return { status: 200, body: signObject({ vasp_code: c.vaspCode, currency_id: q.value.currency_id, addrs: q.value.addrs, is_valid: isValid }, c.privateKey) };
  }

  async function permissionRequest(s: Scope, body: Record<string, unknown>): Promise<Answer> {
    const { o, a, env, companyId } = s;
    if (typeof body.transfer_id !== "string" || !TRANSFER_ID.test(body.transfer_id)) return invalid("permission-request", "transfer_id");
    const read = readPermissionRequestData(body.data);
    if (!read.ok) return invalid("permission-request", read.path);
    const data = read.value;
    const c = credsOf(a);
    const tx = data.transaction;
    const key = await directoryKey(o.baseUrl, env, a, tx.originator_vasp.vasp_code);
    if (!key.ok) return key.code === "UNKNOWN_PEER" ? err(401, "INVALID_SIGNATURE") : fromRead(key);
    if (!verifyObject(body.data, key.body.key)) return err(401, "INVALID_SIGNATURE");
    const over = charge(companyId);
    if (over) return over;
    const transferId = body.transfer_id;
    const existing = await byProviderId(companyId, env, transferId);
    if (existing) {
      const first = existing.history[0]?.detail?.requestSignature;
      return first === data.signature ? OK : err(400, "INCOMING_REPLAY_MISMATCH");
    }
    const client = clientOf(o.baseUrl, env, a);
    const st = await readSignedStatus(client, c, transferId);
    if (!st.ok) return st.code === "STATUS_SIGNATURE_INVALID" ? err(401, "INVALID_SIGNATURE") : fromRead(st);
    const d = st.body.transferData;
    if (d.permission_request_data_signature !== data.signature) return err(400, "INCOMING_REPLAY_MISMATCH");
    if (tx.beneficiary_vasp.vasp_code !== c.vaspCode) return err(400, "UNSUPPORTED_TRANSFER");
    // Part 3: more than one address on a side, or extra information on the originator's address.
    if (tx.originator_vasp.addrs.length !== 1 || tx.beneficiary_vasp.addrs.length !== 1 || hasExtra(tx.originator_vasp.addrs[0].addr_extra_info)) return err(400, "UNSUPPORTED_TRANSFER");
    const now = services.clock();
    const dated = Date.parse(data.data_dt);
    if (!Number.isFinite(dated)) return invalid("permission-request", "data.data_dt");
    const expiry = incomingExpiry(data.expire_date ?? undefined, d.expire_date, dated, now);
    if (expiry === null) return err(400, "TRANSFER_EXPIRED");
    const plain = decryptObject(data.private_info, c.privateKey);
    if (plain === null) return err(400, "UNDECRYPTABLE_PAYLOAD");
    const info = readPrivateInfo(plain);
    if (!info.ok) return invalid("permission-request", `data.${info.path}`);
    const { originatorPersons, beneficiaryPersons } = info.value;
    if (validatePersons(originatorPersons).length || validatePersons(beneficiaryPersons).length || originatorPersons.length === 0) return err(400, "INVALID_PEER_IDENTITY");
    const cur = await client.currencies();
    if (!cur.ok) return fromRead(cur);
    const currency = cur.body.find((x) => x.currency_id === tx.currency_id);
    const network = currency?.network ?? null;
    const asset = currency && network ? services.catalog.assets.find((x) => x.network === network && x.aliases.includes(currency.currency_symbol.toUpperCase())) : undefined;
    if (!currency || !network || !asset) return err(400, "UNSUPPORTED_TRANSFER");
    const address = tx.beneficiary_vasp.addrs[0].address;
    const found = await services.repositories.wallets.byAddress(companyId, env, address);
    const wallet = found && found.network === network ? found : null;
    // Part 3: an address that is no verified wallet of an active, verified customer is rejected at the provider
    // (BVRC001) and the transfer `rejected`. With no wallet at all there is no customer: the transfer is recorded by
    // the actor kept for unowned addresses, with no beneficiary customer.
    const out = await askActor<ProviderEIncomingOutcome>(services.runtime, wallet ? `customer:${wallet.customerId}` : UNOWNED_ACTOR, {
      type: "receiveProviderEIncoming",
      companyId,
      environment: env,
      actor: PROVIDER_ACTOR,
      transfer: {
        id: newId("trf", now),
        providerTransferId: transferId,
        requestSignature: data.signature,
        walletId: wallet?.id ?? null,
        asset: asset.aliases[0] ?? currency.currency_symbol,
        assetId: asset.id,
        amount: tx.amount!,
        network,
        beneficiaryAddress: wallet?.address ?? address,
        originatorAddress: tx.originator_vasp.addrs[0].address,
        originatorPersons,
        beneficiaryPersons,
        originatorVasp: { id: tx.originator_vasp.vasp_code, name: key.body.name || null },
        beneficiaryVasp: { id: c.vaspCode, name: null },
        expiresAt: new Date(expiry).toISOString(),
      },
    });
    if (!out.ok) return err(503, out.code);
    if (out.data.replayMismatch) return err(400, "INCOMING_REPLAY_MISMATCH");
    if (!out.data.created) return OK;
    return tellTransfer(out.data.transfer, { kind: "incoming", refuse: out.data.refuse });
  }

  /** txid, cancel, cdd: a transfer by the provider's ID, signed by its counterparty; then its flow decides. */
  async function byTransfer(s: Scope, event: "txid" | "cancel" | "cdd", body: Record<string, unknown>): Promise<Answer> {
    const id = body.transfer_id;
    if (typeof id !== "string" || !TRANSFER_ID.test(id)) return invalid(event, "transfer_id");
    if (typeof body.signature !== "string" || body.signature === "") return invalid(event, "signature");
    if (event === "txid" && (typeof body.txid !== "string" || body.txid === "" || body.txid.length > 200)) return invalid(event, "txid");
    const t = await byProviderId(s.companyId, s.env, id);
    if (!t) return err(404, "UNKNOWN_TRANSFER");
    const unsigned = await signedByCounterparty(s, t, body);
    if (unsigned) return unsigned;
    const over = charge(s.companyId);
    if (over) return over;
    return tellTransfer(t, { kind: event, body });
  }

  async function permission(s: Scope, request: Request, body: Record<string, unknown>): Promise<Answer> {
    const url = new URL(request.url);
    const id = url.searchParams.get("transfer") ?? "";
    const token = url.searchParams.get("token") ?? "";
    const t = await services.repositories.transfers.get(s.companyId, s.env, id);
    // The token (ours, for this transfer, under provider_e's key) finds the transfer even before the provider's answer
    // to our request is recorded (its protocol is still unset then): a decision relayed that early is not lost.
    if (!t || (t.protocol !== null && t.protocol !== "provider_e") || !tokenMatches(credsOf(s.a).privateKey, id, token)) return err(404, "UNKNOWN_TRANSFER");
    const p = readPermission(body);
    if (!p.ok) return invalid("permission", p.path);
    if (!t.beneficiaryVaspId) {
      // A decision arriving before the provider answered our request: the beneficiary VASP is known to the transfer's
      // actor only once the request is taken, so the actor (after that) checks the signature; an authenticated
      // decision is then counted, never refused for the budget, since it has been applied.
      const answer = await tellTransfer(t, { kind: "permission", body });
      if (answer.status !== 401 && answer.status !== 404 && !(answer.status === 400 && answer.body.error === "Invalid callback")) charge(s.companyId);
      return answer;
    }
    const unsigned = await signedByCounterparty(s, t, body);
    if (unsigned) return unsigned;
    const over = charge(s.companyId);
    if (over) return over;
    return tellTransfer(t, { kind: "permission", body });
  }

  /**
   * Each event and its handler. The signature is checked in the handler, with the key the event names (the bridge's,
   * the originator's from the directory, the transfer's counterparty's), and only then is the budget charged, the
   * provider's status read and the actor told.
   */
  const HANDLERS: Record<Event, (s: Scope, request: Request, body: Record<string, unknown>) => Promise<Answer>> = {
    "address-validation": (s, _r, body) => addressValidation(s, body),
    "permission-request": (s, _r, body) => permissionRequest(s, body),
    permission: (s, request, body) => permission(s, request, body),
    txid: (s, _r, body) => byTransfer(s, "txid", body),
    cancel: (s, _r, body) => byTransfer(s, "cancel", body),
    cdd: (s, _r, body) => byTransfer(s, "cdd", body),
  };

  // The callback's intake: cheap checks before expensive ones, then the event's handler.
  const intake: Intake<Intaken> = {
    provider: "provider_e",
    failed: () => json(503, { error: "CALLBACK_FAILED" }),
    logDetail: (c) => ({ event: c.event }),
    steps: [
      [
        "size",
        // Size first: nothing larger than 2 MiB is read.
        async (c) => {
          const bytes = await readBodyCapped(c.request, MAX_CALLBACK_BODY);
          if (bytes === null) return json(413, { error: "Body too large" });
          c.bytes = bytes;
        },
      ],
      ["company", companyStep(services)],
      [
        "provider",
        // The provider's ID and credentials for the environment.
        async (c) => {
          const o = options();
          const a = c.company!.status === "active" && o ? await context(c.company!.id, c.environment, decodeURIComponent(c.params.providerId ?? "")) : null;
          if (!a || !o) return json(503, { error: "Provider unavailable" });
          c.scope = { o, a, env: c.environment, companyId: c.company!.id };
        },
      ],
      [
        "shape",
        // JSON with bounded nesting (before any signature check serialises it); the event's own shape in its handler.
        (c) => {
          let text: string;
          try {
            text = new TextDecoder("utf-8", { fatal: true }).decode(c.bytes!);
          } catch {
            return send(invalid(c.event, "(body)"));
          }
          const parsed = parseJsonLimited(text);
          if (!parsed.ok) return send(invalid(c.event, parsed.reason === "too_deep" ? "(nesting too deep)" : "(body)"));
          if (!isRec(parsed.value)) return send(invalid(c.event, "(body)"));
          c.body = parsed.value;
        },
      ],
      ["actor", async (c) => send(await HANDLERS[c.event](c.scope!, c.request, c.body!))],
    ],
  };

  const app = new Elysia({ name: "provider_e-callbacks", normalize: false });
  for (const event of EVENTS) {
    const fn = ({ request, params }: { request: Request; params: Record<string, string> }) => runIntake(services, intake, request, params ?? {}, (b) => ({ ...b, event }));
    app.post(`/api/system/trp/provider_e/:environment/:providerId/${event}`, fn as never, { parse: "none" } as never);
  }
  return app;
}
