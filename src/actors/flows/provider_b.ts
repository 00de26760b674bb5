// provider_b's flow (Part 3 "provider_b transfers" Incoming, "provider_b callbacks"): what each callback endpoint,
// once read and verified by its intake, answers and changes.
import type { Repositories } from "../../ports/repositories.ts";
import type { Logger } from "../../adapters/log.ts";
import type { Sealer } from "../../adapters/crypto/envelope.ts";
import type { Pricing } from "../../adapters/fx/index.ts";
import type { Catalog } from "../../domain/assets/catalog.ts";
import type { ActorRuntime } from "../runtime.ts";
import type { Environment } from "../../domain/types.ts";
import type { Person } from "../../domain/ivms101/types.ts";
import { personNames, validatePersons } from "../../domain/ivms101/index.ts";
import { newId } from "../../domain/ids.ts";
import { AMOUNT, decimalsOf } from "../../domain/transfers.ts";
import { findAsset, type CatalogAsset } from "../../domain/assets/catalog.ts";
import { SUPPORTED_NETWORKS, acceptsTag, isSupportedNetwork, type Network } from "../../domain/networks/index.ts";
import { canonicalAddress } from "../../domain/wallets.ts";
import { beneficiaryMatches } from "../../domain/provider_b/names.ts";
import { contentHash, holderReason, outgoingStatus, txidVariants, walletReason, type IncomingReason, type ResultDecision } from "../../domain/provider_b/decisions.ts";
import type { Wallet } from "../../ports/wallets.ts";
import type { Transfer } from "../../ports/transfers.ts";
import { answerAad, type ProviderBRequest, type ProviderBRequestKind } from "../../ports/provider-stores.ts";
import {
  accountNumber,
  buildTransferAnswerMessage,
  fromWirePersons,
  readIvms101,
  splitAccountNumber,
  toWirePersons,
  vaspLegalPerson,
  type Ivms101Message,
  type Ivms101Payload,
  type WirePerson,
} from "../../adapters/providers/provider_b/wire.ts";
import type { CountryCode } from "../../domain/ivms101/types.ts";
import type { IncomingOutcome, Outcome } from "../customer.ts";
import { openIdentity } from "../../domain/identity.ts";

/** What the flow uses of the service. */
export interface ProviderBFlowDeps {
  readonly repositories: Pick<Repositories, "transfers" | "wallets" | "customers" | "providerBRequests">;
  readonly runtime: ActorRuntime;
  readonly log: Logger;
  readonly clock: () => number;
  readonly pii: Sealer;
  readonly secrets: Sealer;
  readonly pricing: Pricing;
  readonly catalog: Catalog;
}

/** An actor's outcome (15 s, as for the API; a time-out fails the callback as processing failed). */
const askActor = <T>(runtime: ActorRuntime, address: string, msg: unknown): Promise<Outcome<T>> => runtime.ask<Outcome<T>>(address, msg, { timeoutMs: 15_000 });

/** What an endpoint answers: `payload` (plaintext) is sealed for the sender's current key when sent. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
  payload?: unknown;
  headers?: Record<string, string>;
}

/** A refusal in the provider's form (Part 3: `{ errorType }`). */
export const refusal = (status: number, errorType: string, headers?: Record<string, string>): Answer => ({ status, body: { errorType }, headers });

/** The company's provider_b for the path's environment, once checked usable. */
export interface Setup {
  companyId: string;
  environment: Environment;
  entityId: string;
  seedBase64: string;
  publicKeyBase64: string;
  legalName: string;
  country: CountryCode;
}

/** An authenticated call: the setup and the sender (`X-Request-Origin`, `X-Code-Req-PubKey`). */
export interface Call {
  setup: Setup;
  sender: { origin: string; entityId: string; publicKeyBase64: string };
  now: number;
}

export interface VerifyAddressBody {
  currency: string;
  address?: string;
  tag?: string;
  network?: string;
}
export interface TransferBody {
  transferId: string;
  currency: string;
  amount: string;
  tradePrice?: string;
  tradeCurrency?: string;
  historicalCost?: string;
  isExceedingThreshold?: boolean;
  address?: string;
  tag?: string;
  network?: string;
}

/** Why processing stopped before a transfer could be created; answered `denied` (or `invalid`) with the reasonType. */
class Denied {
  constructor(readonly reasonType: IncomingReason) {}
}

const PROVIDER_ACTOR = { type: "provider" as const };
const tagKey = (n: Network) => (n === "ripple" ? "dt" : "memo");

/** `address[:memo]` as the wire writes it → the wallet registry's canonical form on `network`, or null. */
function canonicalAccount(network: Network, account: string): string | null {
  const parts = splitAccountNumber(account, acceptsTag(network));
  const c = canonicalAddress(network, parts.tag ? `${parts.address}?${tagKey(network)}=${encodeURIComponent(parts.tag)}` : parts.address);
  return c.ok ? c.address : null;
}

/** The registry's `addr?dt=1` / `addr?memo=x` → the wire's `addr:1` (PROVIDERS.md: a memo travels as `address:memo`). */
function wireAccount(canonical: string): string {
  const q = canonical.indexOf("?");
  if (q < 0) return canonical;
  const v = new URLSearchParams(canonical.slice(q + 1));
  return accountNumber(canonical.slice(0, q), v.get("dt") ?? v.get("memo") ?? v.get("tag"));
}

/** Counterparty persons → ours, valid IVMS101 or null (Part 3: "valid persons"). */
function validPersons(wire: readonly WirePerson[]): Person[] | null {
  let persons: Person[];
  try {
    persons = fromWirePersons(wire);
  } catch {
    return null;
  }
  return persons.length > 0 && validatePersons(persons).length === 0 ? persons : null;
}

export class ProviderBFlows {
  private readonly requests: Repositories["providerBRequests"];
  private readonly wallets: Repositories["wallets"];
  private readonly customers: Repositories["customers"];

  constructor(private readonly services: ProviderBFlowDeps) {
    this.requests = services.repositories.providerBRequests;
    this.wallets = services.repositories.wallets;
    this.customers = services.repositories.customers;
  }

  /**
   * The decrypted payload read in either IVMS101 edition. A shape we do not understand is logged with the field path
   * that failed and the sender, never a value from the payload: personal data stays out of the log.
   */
  private readPayload(call: Call, endpoint: string, plain: unknown): ReturnType<typeof readIvms101> {
    const read = readIvms101(plain);
    if (!read.ok) this.services.log("warn", "provider_b payload not understood", { endpoint, path: read.path, sender: call.sender.origin, environment: call.setup.environment });
    return read;
  }

  // -------------------------------------------------------------------------------------------
  // Wallet and holder (shared by VerifyAddress and the authorization)

  /**
   * Part 3: "find exactly one wallet among the environment's wallets for the account on a network supported for the
   * asset". `network`, when sent, narrows the search; `address`/`tag`, when sent, must be the account's.
   */
  private async locate(s: Setup, currency: string, network: string | undefined, account: string, sent: { address?: string; tag?: string }): Promise<{ wallet: Wallet; network: Network; asset: CatalogAsset }> {
    const networks: readonly Network[] = network === undefined ? SUPPORTED_NETWORKS : isSupportedNetwork(network) ? [network] : [];
    const supported: { network: Network; asset: CatalogAsset }[] = [];
    for (const n of networks) {
      const found = findAsset(this.services.catalog.assets, { asset: currency, network: n });
      // Two tokens sharing the code on a network: which one is meant cannot be told, so it is not supported there.
      if (found?.ok) supported.push({ network: n, asset: found.asset });
    }
    if (supported.length === 0) throw new Denied("NOT_SUPPORTED_SYMBOL");
    const hits = new Map<string, { wallet: Wallet; network: Network; asset: CatalogAsset }>();
    for (const { network: n, asset } of supported) {
      const canonical = canonicalAccount(n, account);
      if (canonical === null) continue;
      if (sent.address !== undefined && canonicalAccount(n, accountNumber(sent.address, sent.tag)) !== canonical) continue;
      const w = await this.wallets.byAddress(s.companyId, s.environment, canonical);
      if (w && w.network === n) hits.set(w.id, { wallet: w, network: n, asset });
    }
    const reason = walletReason(hits.size);
    if (reason) throw new Denied(reason);
    return [...hits.values()][0]!;
  }

  /** The holder checks of Part 3 outside the actor (VerifyAddress records nothing, so it needs no serialising). */
  private async holder(s: Setup, w: Wallet, sentPersons: readonly WirePerson[]): Promise<void> {
    const c = await this.customers.get(s.companyId, s.environment, w.customerId);
    const reason = c ? holderReason({ customerActive: c.status === "active", walletVerified: w.verified, identityStatus: c.identityStatus }) : "NOT_KYC_USER";
    if (reason) throw new Denied(reason);
    if (sentPersons.length === 0) return;
    const identity = openIdentity({ id: c!.id, identitySealed: c!.identitySealed! }, (s, aad) => this.services.pii.open(s, aad));
    let persons: Person[];
    try {
      persons = fromWirePersons(sentPersons);
    } catch {
      throw new Denied("INPUT_NAME_MISMATCHED");
    }
    if (!beneficiaryMatches(persons, identity)) throw new Denied("INPUT_NAME_MISMATCHED");
  }

  // -------------------------------------------------------------------------------------------
  // Endpoints

  /** `POST v1/beneficiary/VerifyAddress`: valid, or invalid with a reasonType; our entity ID either way; nothing recorded. */
  async verifyAddress(call: Call, body: VerifyAddressBody, plain: unknown): Promise<Answer> {
    const s = call.setup;
    const read = this.readPayload(call, "v1/beneficiary/VerifyAddress", plain);
    const ben = read.ok ? read.value.Beneficiary : undefined;
    const account = ben?.accountNumber[0] ?? (body.address !== undefined ? accountNumber(body.address, body.tag) : undefined);
    try {
      if (account === undefined || (ben && ben.accountNumber.length > 1)) throw new Denied("LACK_OF_INFORMATION");
      const found = await this.locate(s, body.currency, body.network, account, body);
      await this.holder(s, found.wallet, ben?.beneficiaryPersons ?? []);
      return { status: 200, body: { result: "valid", beneficiaryVaspEntityId: s.entityId } };
    } catch (e) {
      if (!(e instanceof Denied)) throw e;
      return { status: 200, body: { result: "invalid", reasonType: e.reasonType, beneficiaryVaspEntityId: s.entityId } };
    }
  }

  /**
   * `POST v1/beneficiary/transfer`: recorded by environment, sender and transferId; decided within the request
   * (Part 3, provider_b transfers → Incoming).
   */
  async transfer(call: Call, body: TransferBody, plain: unknown): Promise<Answer> {
    const content = { kind: "transfer", ...body, payload: plain };
    return this.idempotent(call, "transfer", body.transferId, content, (request) => this.authorize(call, body, plain, request));
  }

  private async authorize(call: Call, body: TransferBody, plain: unknown, request: ProviderBRequest): Promise<{ answer: Answer; transferRef: string | null }> {
    const s = call.setup;
    const denied = (reasonType: string): { answer: Answer; transferRef: string | null } => ({
      answer: { status: 200, body: { result: "denied", reasonType, transferId: body.transferId, beneficiaryVasp: {} } },
      transferRef: null,
    });
    // Data first (Part 3): beneficiary with one account number and a person; originator with one account number and
    // valid persons; the originating VASP a legal person. Anything missing or invalid is LACK_OF_INFORMATION.
    const read = this.readPayload(call, "v1/beneficiary/transfer", plain);
    if (!read.ok) return denied("LACK_OF_INFORMATION");
    const m = read.value;
    const ben = m.Beneficiary;
    const ori = m.Originator;
    const vasp = m.OriginatingVASP?.originatingVASP;
    if (!ben || ben.accountNumber.length !== 1 || ben.beneficiaryPersons.length === 0) return denied("LACK_OF_INFORMATION");
    if (!ori || ori.accountNumber.length !== 1 || ori.accountNumber[0]!.length > 1024) return denied("LACK_OF_INFORMATION");
    const originatorPersons = validPersons(ori.originatorPersons);
    const beneficiaryPersons = validPersons(ben.beneficiaryPersons);
    const vaspPersons = vasp ? validPersons([{ legalPerson: vasp.legalPerson }]) : null;
    if (!originatorPersons || !beneficiaryPersons || !vaspPersons) return denied("LACK_OF_INFORMATION");

    let found: Awaited<ReturnType<ProviderBFlows["locate"]>>;
    try {
      found = await this.locate(s, body.currency, body.network, ben.accountNumber[0]!, body);
    } catch (e) {
      if (e instanceof Denied) return denied(e.reasonType);
      throw e;
    }
    if (decimalsOf(body.amount) > found.asset.decimals) return denied("LACK_OF_INFORMATION");

    const externalId = `provider_b-inbound:${request.id}`;
    const out = await askActor<IncomingOutcome>(this.services.runtime, `customer:${found.wallet.customerId}`, {
      type: "receiveIncoming",
      companyId: s.companyId,
      environment: s.environment,
      actor: PROVIDER_ACTOR,
      transfer: {
        id: newId("trf", call.now),
        externalId,
        protocol: "provider_b",
        walletId: found.wallet.id,
        asset: found.asset.aliases[0] ?? body.currency,
        assetId: found.asset.id,
        amount: body.amount,
        network: found.network,
        beneficiaryAddress: found.wallet.address,
        originatorAddress: ori.accountNumber[0]!,
        originatorPersons,
        beneficiaryPersons,
        // Part 3: `originator.vaspId` is the sender's X-Request-Origin.
        originatorVasp: { id: call.sender.origin, name: personNames(vaspPersons)[0] || null },
        beneficiaryVasp: { id: s.entityId, name: s.legalName },
        thresholdInfo: {
          amount: body.amount,
          asset: body.currency,
          tradePrice: body.tradePrice ?? null,
          tradeCurrency: body.tradeCurrency ?? null,
          isExceedingThreshold: body.isExceedingThreshold ?? null,
        },
      },
    });
    if (!out.ok) throw new Error(`receiveIncoming refused: ${out.code}`);
    const r = out.data;
    if (r.result === "denied") return { ...denied(r.reasonType ?? "UNKNOWN"), transferRef: r.transfer?.id ?? null };
    // PROVIDERS.md: the answer copies Originator, OriginatingVASP and Beneficiary and adds BeneficiaryVASP.
    const payload: Ivms101Payload = buildTransferAnswerMessage(m, { beneficiaryVasp: { legalName: s.legalName, country: s.country } });
    return {
      answer: { status: 200, body: { result: "verified", transferId: body.transferId, beneficiaryVasp: {} }, payload },
      transferRef: r.transfer.id,
    };
  }

  /** `POST v1/beneficiary/transfer/txid` (plain JSON): only on the authorization this sender made. */
  async txid(call: Call, body: { transferId: string; txid: string; vout?: string }): Promise<Answer> {
    return this.afterAuthorization(call, body.transferId, (ref, s) =>
      askActor<ResultDecision>(this.services.runtime, `transfer:${ref}`, { type: "inboundTxid", txid: body.txid, vout: body.vout ?? null, companyId: s.companyId, environment: s.environment, actor: PROVIDER_ACTOR }),
    { result: "error", reasonType: "UNKNOWN_TRANSFER_ID" });
  }

  /** `PUT v1/vasp/transfer/status` canceled: a denied request has nothing to cancel and answers normal. */
  async cancel(call: Call, body: { transferId: string; reasonType?: string }): Promise<Answer> {
    return this.afterAuthorization(call, body.transferId, (ref, s) =>
      askActor<ResultDecision>(this.services.runtime, `transfer:${ref}`, { type: "inboundCancel", reasonType: body.reasonType ?? null, companyId: s.companyId, environment: s.environment, actor: PROVIDER_ACTOR }),
    { result: "normal" });
  }

  /**
   * Part 3: "a report or cancellation from a different sender than the authorization's answers result error,
   * UNKNOWN_TRANSFER_ID": records are keyed by sender, so another sender's transferId is simply not found.
   */
  private async afterAuthorization(
    call: Call,
    transferId: string,
    act: (transferRef: string, s: Setup) => Promise<Outcome<ResultDecision>>,
    withoutTransfer: ResultDecision,
  ): Promise<Answer> {
    const s = call.setup;
    const rec = await this.requests.get({ companyId: s.companyId, environment: s.environment, sender: call.sender.origin, transferId });
    const answer = (d: ResultDecision): Answer => ({ status: 200, body: { transferId, ...d } });
    if (!rec || rec.kind !== "transfer") return answer({ result: "error", reasonType: "UNKNOWN_TRANSFER_ID" });
    if (rec.state !== "done") return refusal(503, "REQUEST_IN_PROGRESS");
    if (!rec.transferRef) return answer(withoutTransfer);
    const out = await act(rec.transferRef, s);
    if (!out.ok) throw new Error(`transfer actor refused: ${out.code}`);
    return answer(out.data);
  }

  // -------------------------------------------------------------------------------------------
  // Questions about the company's outgoing transfers to the sender (Part 3: answered only about those).

  private outgoingByTransferId(call: Call, transferId: string): Promise<Transfer | undefined> {
    const s = call.setup;
    return this.services.repositories.transfers.outgoingProviderB(s.companyId, s.environment, transferId, call.sender.entityId);
  }

  /** Outgoing provider_b transfers to the sender with this transaction, sent to this address (`address[:memo]`). */
  private async outgoingByTx(call: Call, txid: string, beneficiaryAddress: string): Promise<Transfer | undefined> {
    const s = call.setup;
    const rows = await this.services.repositories.transfers.outgoingProviderBByTx(s.companyId, s.environment, txidVariants(txid), call.sender.entityId);
    return rows.find((t) => isSupportedNetwork(t.network) && canonicalAccount(t.network, beneficiaryAddress) === t.beneficiaryAddress);
  }

  /** `POST v1/vasp/transfer/status`: pending, processing or canceled; an unknown transfer is 503 UNKNOWN_TRANSFER_ID. */
  async status(call: Call, body: { transferId: string }): Promise<Answer> {
    const t = await this.outgoingByTransferId(call, body.transferId);
    if (!t) return refusal(503, "UNKNOWN_TRANSFER_ID");
    const status = outgoingStatus({ state: t.state, txHash: t.txHash });
    return { status: 200, body: { transferId: body.transferId, status, ...(t.txHash ? { txid: t.txHash } : {}) } };
  }

  /** `POST v1/verification/tx`: valid when the transaction is the company's outgoing transfer to the caller. */
  async verifyTx(call: Call, body: { txid: string; beneficiaryAddress: string }): Promise<Answer> {
    return { status: 200, body: { result: (await this.outgoingByTx(call, body.txid, body.beneficiaryAddress)) ? "valid" : "invalid" } };
  }

  /**
   * `PUT v1/verification/tx`: given the caller's beneficiary data (which must match the transfer's beneficiary), the
   * transaction's Travel Rule data; else error NOT_FOUND_TXID or LACK_OF_INFORMATION. Recorded like an authorization.
   */
  async transferData(call: Call, body: { transferId: string; txid: string; beneficiaryAddress: string }, plain: unknown): Promise<Answer> {
    const content = { kind: "transfer_data", ...body, payload: plain };
    return this.idempotent(call, "transfer_data", body.transferId, content, async () => ({ answer: await this.answerTransferData(call, body, plain), transferRef: null }));
  }

  private async answerTransferData(call: Call, body: { transferId: string; txid: string; beneficiaryAddress: string }, plain: unknown): Promise<Answer> {
    const s = call.setup;
    const error = (reasonType: string): Answer => ({ status: 200, body: { result: "error", reasonType, transferId: body.transferId } });
    const t = await this.outgoingByTx(call, body.txid, body.beneficiaryAddress);
    if (!t) return error("NOT_FOUND_TXID");
    const read = this.readPayload(call, "v1/verification/tx", plain);
    const m: Ivms101Message | null = read.ok ? read.value : null;
    const sent = m?.Beneficiary ? validPersons(m.Beneficiary.beneficiaryPersons) : null;
    const pii = this.services.pii;
    const stored = t.beneficiarySealed ? (JSON.parse(pii.open(t.beneficiarySealed, `transfer:${t.id}:beneficiary`)) as Person[]) : [];
    if (!sent || !beneficiaryMatches(sent, stored)) return error("LACK_OF_INFORMATION");
    const originator = t.originatorSealed ? (JSON.parse(pii.open(t.originatorSealed, `transfer:${t.id}:originator`)) as Person[]) : [];
    const asset = this.services.catalog.assets.find((a) => a.id === t.assetId);
    let tradePrice: string | undefined;
    if (asset) {
      try {
        tradePrice = (await this.services.pricing.value({ companyId: s.companyId, environment: s.environment, asset, amount: t.amount, currency: "USD" })).value;
      } catch {
        tradePrice = undefined;
      }
    }
    const payload: Ivms101Payload = {
      ivms101: {
        Originator: { originatorPersons: toWirePersons(originator), accountNumber: t.originatorAddress ? [wireAccount(t.originatorAddress)] : [] },
        Beneficiary: m!.Beneficiary!,
        OriginatingVASP: { originatingVASP: vaspLegalPerson({ legalName: s.legalName, country: s.country }) },
        ...(m!.BeneficiaryVASP ? { BeneficiaryVASP: m!.BeneficiaryVASP } : {}),
      },
    };
    return {
      status: 200,
      body: {
        result: "normal",
        transferId: body.transferId,
        currency: t.asset,
        amount: t.amount,
        ...(tradePrice !== undefined ? { tradePrice, tradeCurrency: "USD" } : {}),
        // Outgoing provider_b transfers are those at or above the Travel Rule threshold (queued ones).
        isExceedingThreshold: "true",
      },
      payload,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Idempotency (Part 3, provider_b callbacks)

  /**
   * The same request again gets the first answer (re-encrypted by the caller for the sender's current key); the same
   * transferId with other content is DUPLICATE_TRANSFER_ID; one still being processed REQUEST_IN_PROGRESS until five
   * minutes have passed. A failure without an answer releases the record so that a retry processes it again.
   */
  private async idempotent(
    call: Call,
    kind: ProviderBRequestKind,
    transferId: string,
    content: unknown,
    process: (request: ProviderBRequest) => Promise<{ answer: Answer; transferRef: string | null }>,
  ): Promise<Answer> {
    const s = call.setup;
    const key = { companyId: s.companyId, environment: s.environment, sender: call.sender.origin, transferId };
    const claim = await this.requests.claim(key, kind, contentHash(content), call.now);
    switch (claim.decision) {
      case "duplicate":
        return refusal(503, "DUPLICATE_TRANSFER_ID");
      case "in_progress":
        return refusal(503, "REQUEST_IN_PROGRESS");
      case "replay":
        return this.services.secrets.openJson<Answer>(claim.request.answerSealed!, answerAad(claim.request.id));
      case "new":
      case "reclaim":
        break;
    }
    try {
      const { answer, transferRef } = await process(claim.request);
      await this.requests.finish(claim.request.id, this.services.secrets.sealJson(answer, answerAad(claim.request.id)), transferRef, this.services.clock());
      return answer;
    } catch (e) {
      await this.requests.release(claim.request.id, this.services.clock());
      throw e;
    }
  }
}

/** Body field check shared with the route: `AMOUNT` is the API's decimal amount. */
export const isAmount = (v: string): boolean => AMOUNT.test(v);
