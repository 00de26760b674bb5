// POST /api/v2/transfers (Part 1): validate the body, price the amount, one ask to the originator's customer actor
// (which reads the customer and wallets and decides, src/domain/transfers/create.ts), present the answer.
import { apiError } from "../../domain/errors.ts";
import { newId, iso } from "../../domain/ids.ts";
import { maskName } from "../../domain/masking.ts";
import { findAsset } from "../../domain/assets/catalog.ts";
import { isSupportedNetwork } from "../../domain/networks/index.ts";
import { canonicalAddress } from "../../domain/wallets.ts";
import { decodeTravelAddress, looksLikeTravelAddress } from "../../domain/provider_d/travel-address.ts";
import { personsCountries } from "../../domain/ivms101/persons.ts";
import { decimalsOf, SCHEMA_NAME, validateCreateTransfer, type CreateTransferInput } from "../../domain/transfers.ts";
import type { AppliedThreshold, Valuation } from "../../domain/transfers/create.ts";
import type { CreatedTransfer, NewTransfer } from "../../actors/customer-transfers.ts";
import type { PricingAsset, ValuationRecord } from "../../adapters/fx/pricing.ts";
import type { Transfer } from "../../ports/transfers.ts";
import type { Reply, RouteContext } from "../kit.ts";
import { askActor, unwrap } from "../outcome.ts";
import type { TransferRouteDeps } from "./deps.ts";
import { replayDifferences } from "../../domain/transfers/replay.ts";
import { sha256Hex } from "../../adapters/crypto/hash.ts";

/** A create body the spec refuses: 400 VALIDATION_ERROR naming the create schema. */
const invalidCreate = (message: string, validationErrors?: string[]): never => {
  throw apiError("VALIDATION_ERROR", { message, details: { ...(validationErrors ? { validationErrors } : {}), schemaName: SCHEMA_NAME } });
};

/** What a valid create body names, in canonical form: everything the customer actor is asked with but the price. */
interface ValidCreate {
  input: CreateTransferInput;
  asset: PricingAsset;
  originatorAddress: string | null;
  beneficiaryAddress: string;
}

/** A create's body as the pipeline read it: the Idempotency-Key, the body as sent, and what it names or the key's transfer. */
export type CreateBody = { key: string | null; raw: unknown } & ({ valid: ValidCreate } | { replay: Transfer });
type Create = RouteContext<any, CreateBody>;

/** The body, the asset in the catalog and its policy, the addresses' formats: everything checked without the customer. */
async function validate(c: RouteContext, deps: TransferRouteDeps): Promise<ValidCreate> {
  const { company, environment } = c.auth;
  const v = validateCreateTransfer(c.body, iso(c.now).slice(0, 10));
  if (!v.ok) return invalidCreate(v.errors.join("; "), v.errors);
  const input = v.value;
  if (!isSupportedNetwork(input.network)) return invalidCreate(`network ${input.network} is not a supported network`);
  const found = findAsset(deps.catalog.assets, { asset: input.asset, network: input.network });
  if (!found) return invalidCreate(`asset ${input.asset} is not known on ${input.network}`);
  if (!found.ok) return invalidCreate(`asset ${input.asset} is ambiguous on ${input.network}; give the asset ID`);
  const asset = found.asset as PricingAsset & { defaultEnabled: boolean };
  const errors: string[] = [];
  if (decimalsOf(input.amount) > asset.decimals) errors.push(`amount: has more decimals than ${input.asset} allows (${asset.decimals})`);
  // A Travel Address (provider_d, TRP) stands for the chain address until the beneficiary VASP approves with one.
  const travel = looksLikeTravelAddress(input.beneficiaryAddress) && decodeTravelAddress(input.beneficiaryAddress).ok;
  const beneficiary = travel ? { ok: true as const, address: input.beneficiaryAddress.trim() } : canonicalAddress(input.network, input.beneficiaryAddress);
  if (!beneficiary.ok) errors.push(`beneficiaryAddress: ${beneficiary.reason}`);
  if (errors.length) return invalidCreate(errors.join("; "), errors);
  if (!(await deps.policy.isEnabled(company.id, environment, asset.id, asset.defaultEnabled))) invalidCreate(`asset ${input.asset} on ${input.network} is disabled in the ${environment} environment`);
  let originatorAddress: string | null = null;
  if (input.originatorAddress !== null) {
    // An address of no valid form is no wallet of anyone: the same refusal as a wallet of another customer.
    const o = canonicalAddress(input.network, input.originatorAddress);
    if (!o.ok) invalidCreate("originatorAddress is not a wallet registered to the originator customer");
    originatorAddress = (o as { address: string }).address;
  }
  if (personsCountries(input.originatorPersons).length === 0) invalidCreate("The originator has no country: give geographicAddress, countryOfResidence or countryOfRegistration");
  return { input, asset, originatorAddress, beneficiaryAddress: (beneficiary as { address: string }).address };
}

/** The amount valued in the applicable threshold's currency; nothing is created when pricing fails (503 TIMEOUT). */
async function price(c: RouteContext, deps: TransferRouteDeps, v: ValidCreate): Promise<{ threshold: AppliedThreshold; valuation: Valuation; record?: ValuationRecord }> {
  const { company, environment } = c.auth;
  try {
    const threshold = await deps.threshold(company.id, c.now);
    const request = { companyId: company.id, environment, amount: v.input.amount, currency: threshold.currency };
    if (deps.pricing) return { threshold, ...(await deps.pricing.appraise({ ...request, asset: v.asset })) };
    return { threshold, valuation: await deps.price({ ...request, assetId: v.asset.id }) };
  } catch (e) {
    if (deps.isPricingFailure(e)) throw apiError("TIMEOUT", { message: "Pricing the amount or checking the threshold timed out; retry", headers: { "Retry-After": "5" } });
    throw e;
  }
}

/** An Idempotency-Key used before: the transfer it created (Part 1), nothing new created. */
export function presentIdempotent(t: Transfer): Reply {
  return { status: 200, data: { id: t.id, state: t.state, createdAt: t.createdAt }, meta: { idempotent: true, message: "This Idempotency-Key was used before: the transfer it created is answered and nothing new is created" } };
}

/** Part 1 create answers: 201 completed below the threshold, 202 queued for the Travel Rule exchange. */
export function presentCreated(c: RouteContext, created: Extract<CreatedTransfer, { idempotent: false }>, preferredProtocol: string | null): Reply {
  const { transfer: t, thresholdInfo } = created;
  // The row carries the own VASP as it was when the transfer was created.
  const originator: Record<string, unknown> = { address: t.originatorAddress, vasp: { id: t.originatorVaspId, name: t.originatorVaspName } };
  if (created.originatorName !== null) originator.name = c.pii(created.originatorName, maskName);
  const beneficiary: Record<string, unknown> = { address: t.beneficiaryAddress, verified: created.beneficiaryVerified };
  if (created.beneficiaryName !== null) beneficiary.name = c.pii(created.beneficiaryName, maskName);
  const base = { id: t.id, state: t.state, direction: t.direction, asset: t.asset, amount: t.amount, network: t.network, originator, beneficiary };
  if (t.state === "completed") {
    return {
      status: 201,
      data: { ...base, compliance: "approved", routing: "skipped", thresholdInfo, fxRateId: t.fxRateId, createdAt: t.createdAt },
      meta: { message: `The amount is below the Travel Rule threshold (${thresholdInfo.threshold} ${thresholdInfo.thresholdCurrency}, ${thresholdInfo.jurisdiction}): the transfer is completed without a Travel Rule exchange` },
    };
  }
  return {
    status: 202,
    data: { ...base, originatorStatus: "pending", beneficiaryStatus: null, compliance: "pending", routing: "queued", createdAt: t.createdAt, expiresAt: t.expiresAt },
    meta: { jobId: `job_${t.id.slice(4)}`, message: `Transfer queued: screening and the Travel Rule exchange follow${preferredProtocol ? `, ${preferredProtocol} first` : ""}` },
  };
}

/**
 * The create handler. An Idempotency-Key used before is answered from its transfer: found by the customer actor (which
 * also catches a racing create with the same key), or, when the create is refused before or by the actor (a body that
 * no longer validates, pricing that fails), found here before the refusal is answered.
 */
export function createHandler(deps: TransferRouteDeps, replayOf: (companyId: string, env: "test" | "live", key: string) => Promise<Transfer | undefined>) {
  /** Creates without an Idempotency-Key in progress, by what they would create: two at once collide (409). */
  const inFlight = new Set<string>();

  async function ask(c: Create, v: ValidCreate, key: string | null): Promise<Reply> {
    const { company, environment } = c.auth;
    const { threshold, valuation, record } = await price(c, deps, v);
    const n: NewTransfer = {
      id: newId("trf", c.now),
      idempotencyKey: key,
      input: v.input,
      assetId: v.asset.id,
      originatorAddress: v.originatorAddress,
      beneficiaryAddress: v.beneficiaryAddress,
      threshold,
      valuation: { fxRateId: valuation.fxRateId, value: valuation.value },
      ...(record ? { valuationRecord: record } : {}),
    };
    const msg = { type: "createTransfer", transfer: n, companyId: company.id, environment, actor: c.auth.actor };
    const { data } = unwrap(await askActor<CreatedTransfer>(deps.runtime, `customer:${v.input.originatorCustomerId}`, msg));
    if (data.idempotent) {
      warnIfAnotherBody(c, data.transfer, key!);
      return presentIdempotent(data.transfer);
    }
    return presentCreated(c, data, v.input.preferredProtocol);
  }

  /**
   * The key answers with its transfer whatever the body (Part 1, kept), but a body naming another transfer (another
   * amount, customer, address) is most likely a client bug: one warning, with hashes of the key and the body and the
   * names of the fields that differ, never the body or the key themselves.
   */
  function warnIfAnotherBody(c: Create, t: Transfer, key: string): void {
    const differs = replayDifferences(
      {
        asset: t.asset,
        network: t.network,
        amount: t.amount,
        originatorCustomerId: t.originatorCustomerId,
        originatorAddress: t.originatorAddress,
        beneficiaryAddress: t.beneficiaryAddress,
        preferredProtocol: t.preferredProtocol,
      },
      c.body.raw,
    );
    if (differs.length === 0) return;
    deps.log?.("warn", "Idempotency-Key reused with a different body: answered with the transfer the key created", {
      companyId: c.auth.company.id,
      environment: c.auth.environment,
      transferId: t.id,
      keySha256: sha256Hex(key),
      bodySha256: sha256Hex(JSON.stringify(c.body.raw ?? null)),
      differs,
    });
  }

  /**
   * The body, read by the pipeline before the handler: the Idempotency-Key header's form first, then the body; a body
   * that does not validate under a key used before is answered from the key's transfer, not refused.
   */
  async function read(body: unknown, c: RouteContext): Promise<CreateBody> {
    const key = c.request.headers.get("idempotency-key");
    if (key !== null && (key.trim() === "" || Array.from(key).length > 255)) invalidCreate("The Idempotency-Key header must be text of 1 to 255 characters");
    try {
      return { key, raw: body, valid: await validate(c, deps) };
    } catch (e) {
      if (key === null) throw e;
      return replayOf(c.auth.company.id, c.auth.environment, key).then((done) => {
        if (done) return { key, raw: body, replay: done };
        throw e;
      });
    }
  }

  async function create(c: Create): Promise<Reply> {
    const { company, environment } = c.auth;
    const { key } = c.body;
    if ("replay" in c.body) {
      warnIfAnotherBody(c, c.body.replay, key!);
      return presentIdempotent(c.body.replay);
    }
    const v = c.body.valid;
    if (key !== null) {
      // The key's earlier transfer is looked up by the customer actor, in the read transaction it takes for every create
      // (one WAL read lock per create instead of two). A replay whose pricing fails, or that the actor refuses, is
      // still answered from its transfer: the key is looked up here before any refusal.
      try {
        return await ask(c, v, key);
      } catch (e) {
        const done = await replayOf(company.id, environment, key);
        if (done) {
          warnIfAnotherBody(c, done, key);
          return presentIdempotent(done);
        }
        throw e;
      }
    }
    // Two creates without a key collide while the first is in progress, pricing included (409 CONFLICT).
    const fingerprint = JSON.stringify([company.id, environment, v.input.originatorCustomerId, v.asset.id, v.input.amount, v.beneficiaryAddress]);
    if (inFlight.has(fingerprint)) throw apiError("CONFLICT", { message: "An identical create without an Idempotency-Key is in progress; send an Idempotency-Key" });
    inFlight.add(fingerprint);
    try {
      return await ask(c, v, null);
    } finally {
      inFlight.delete(fingerprint);
    }
  }

  return { read, create };
}
