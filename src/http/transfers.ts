// /api/v2/transfers: create (priced against the applicable threshold), list, read, act (Part 1, Transfers).
import Decimal from "decimal.js";
import { apiError } from "../domain/errors.ts";
import { newId, iso } from "../domain/ids.ts";
import { maskName, maskText } from "../domain/masking.ts";
import { findAsset, type Catalog } from "../domain/assets/catalog.ts";
import { isSupportedNetwork } from "../domain/networks/index.ts";
import { canonicalAddress } from "../domain/wallets.ts";
import { personsCountries } from "../domain/ivms101/persons.ts";
import { decimalsOf, readChecksLimit, readChecksOffset, SCHEMA_NAME, TRANSFER_STATES, PROTOCOLS, validateCreateTransfer, type CreateTransferInput, type Protocol } from "../domain/transfers.ts";
import type { ActorRuntime } from "../actors/runtime.ts";
import type { NewTransfer } from "../actors/customer.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import type { Storage } from "../adapters/storage/index.ts";
import { Transfers, type TransferRow } from "../adapters/storage/repos/transfers.ts";
import { Wallets } from "../adapters/storage/repos/wallets.ts";
import type { AssetPolicy } from "../adapters/storage/repos/assets.ts";
import type { ProviderRegistry } from "../adapters/providers/registry.ts";
import type { ProviderSettings } from "../adapters/storage/repos/provider-settings.ts";
import type { PricingAsset, ValuationRecord, ValueRequest } from "../adapters/fx/pricing.ts";
import { ownVasp } from "../adapters/storage/repos/thresholds.ts";
import { ok, page, type ApiKit, type RouteContext } from "./kit.ts";
import { keysetPage } from "./paging.ts";
import { q, type QueryParam } from "./query.ts";
import { askActor, unwrap } from "./outcome.ts";
import { presentCheck, presentListCheck, type StoredCheck } from "../actors/checkpoint.ts";
import * as api from "../api/transfers.ts";

/** The Travel Rule threshold that applies to the company now (Part 2, thresholds with FATF fallbacks). */
export interface AppliedThreshold {
  amount: string;
  currency: string;
  jurisdiction: string;
  regulation: string;
}

export interface Valuation {
  fxRateId: string;
  value: string;
}

export interface TransferRouteDeps {
  storage: Storage;
  runtime: ActorRuntime;
  pii: Sealer;
  cursorKey: Uint8Array;
  catalog: Catalog;
  policy: AssetPolicy;
  providers: ProviderRegistry;
  /** The providers' stable IDs (`prv_…`) for the list's `provider.id`. */
  providerSettings?: Pick<ProviderSettings, "id">;
  threshold(companyId: string, now: number): AppliedThreshold;
  /** Values the amount in `currency`; throws TimeoutLike errors the route answers as 503 TIMEOUT. */
  price(p: { companyId: string; environment: "test" | "live"; assetId: string; amount: string; currency: string }): Promise<Valuation>;
  /**
   * When given (the service's Pricing), used instead of `price`: values without recording, and the valuation row is
   * written by the customer actor in the commit of the transfer that names it (one commit per create, issue 19).
   */
  pricing?: { appraise(p: ValueRequest): Promise<{ valuation: Valuation; record: ValuationRecord }> };
  isPricingFailure(e: unknown): boolean;
}

const ID = /^trf_[0-9a-z]{26}$/;
const EXPIRY_MS = 24 * 60 * 60 * 1000; // Part 3: expiresAt is set 24 hours after creation

const refuse = (message: string, extra: Record<string, unknown> = {}): never => {
  throw apiError("VALIDATION_ERROR", { message, details: { schemaName: SCHEMA_NAME, ...extra } });
};

/** Read leniently, never refused (Part 1: out of range is the nearest bound; non-number or 0 is the default). */
const lenient = (read: (raw: string | undefined) => number, def: number): QueryParam<number> & { default: number } => ({
  schema: { type: "integer", default: def } as never,
  default: def,
  parse: (raw) => ({ value: read(raw) }),
});

const statusFilter: QueryParam<string> = q.enumOf(["pending", "approved", "rejected", "all"] as const);

export function transferRoutes(kit: ApiKit, deps: TransferRouteDeps) {
  const repo = new Transfers(deps.storage);
  const wallets = new Wallets(deps.storage);
  /** Creates without an Idempotency-Key in progress, by what they would create: two at once collide (409). */
  const inFlight = new Set<string>();

  function find(c: RouteContext, id: string): TransferRow {
    const t = ID.test(id) ? repo.get(c.auth.company.id, c.auth.environment, id) : undefined;
    if (!t) throw apiError("TRANSFER_NOT_FOUND", { details: { resource: "Transfer", id } });
    return t;
  }

  const open = (sealed: string, aad: string) => deps.pii.open(sealed, aad);
  const party = (vaspId: string | null, vaspName: string | null, address: string | null) => ({ name: vaspName ?? vaspId, vaspId, vaspName, address });

  /** A provider's ID never changes once created (first save): kept here once known, not read again per list item. */
  const providerIds = new Map<string, string>();

  /** Part 1 list item `provider`: the provider's ID (`prv_…`, the same in both environments), name, display name, protocol. */
  function providerOf(companyId: string, p: Protocol) {
    const key = `${companyId}:${p}`;
    let id = providerIds.get(key) ?? null;
    if (id === null) {
      id = deps.providerSettings?.id(companyId, p) ?? null;
      if (id !== null) providerIds.set(key, id);
    }
    return { id, name: p, displayName: deps.providers.displayName(p), protocol: p };
  }

  function listItem(c: RouteContext, t: TransferRow) {
    const checks = JSON.parse(t.checks) as StoredCheck[];
    return {
      id: t.id,
      direction: t.direction,
      state: t.state,
      status: t.status,
      asset: t.asset,
      amount: t.amount,
      network: t.network,
      blockchainType: t.blockchain_type,
      originator: party(t.originator_vasp_id, t.originator_vasp_name, t.originator_address),
      beneficiary: party(t.beneficiary_vasp_id, t.beneficiary_vasp_name, t.beneficiary_address),
      // The originator side's status: ours on an outgoing transfer, the counterparty's on an incoming one (Part 1).
      travelRule: { protocol: t.protocol ?? "pending", matchedAt: t.matched_at, status: t.direction === "outgoing" ? t.ours_status : t.theirs_status },
      screening: { sanctions: { status: t.sanctions_status, provider: t.sanctions_provider } },
      compliance: { checks: checks.map((k) => presentListCheck(k, c.auth.piiView, open, t.id)) },
      provider: t.protocol ? providerOf(c.auth.company.id, t.protocol as Protocol) : null,
      externalId: t.external_id,
      createdAt: t.created_at,
    };
  }

  function detail(c: RouteContext, t: TransferRow, checksLimit: number, checksOffset: number) {
    const checks = JSON.parse(t.checks) as StoredCheck[];
    const attempts = JSON.parse(t.attempts) as Record<string, unknown>[];
    // Decrypted only for a role that may see it: the mask of any text is "***", so nothing needs opening for the others.
    const details = t.rejection_details_sealed ? (c.auth.piiView ? deps.pii.open(t.rejection_details_sealed, `transfer:${t.id}:rejection`) : "") : null;
    const out: Record<string, unknown> = {
      id: t.id,
      direction: t.direction,
      state: t.state,
      asset: t.asset,
      amount: t.amount,
      network: t.network,
      originator: { address: t.originator_address, vaspId: t.originator_vasp_id, vaspName: t.originator_vasp_name },
      beneficiary: { address: t.beneficiary_address, vaspId: t.beneficiary_vasp_id, vaspName: t.beneficiary_vasp_name },
      status: { ours: t.ours_status, theirs: t.theirs_status },
      rejection: t.rejection_reason ? { reason: t.rejection_reason, details: c.pii(details, maskText) } : null,
      compliance: {
        // The verdict, the same value the list shows as `status`: a transfer has one from its creation (pending until
        // decided), whether rules with integration checks or field rules alone decided it.
        status: t.status,
        total: checks.length,
        checks: checks.slice(checksOffset, checksOffset + checksLimit).map((k) => presentCheck(k, c.auth.piiView, open, t.id)),
      },
      cascade: { provider: t.protocol, externalId: t.provider_external_id, attempts },
      txHash: t.tx_hash,
      messages: JSON.parse(t.messages),
    };
    if (t.expires_at) out.expiresAt = t.expires_at;
    if (t.accepted_at) out.acceptedAt = t.accepted_at;
    if (t.completed_at) out.completedAt = t.completed_at;
    out.createdAt = t.created_at;
    return out;
  }

  async function create(c: RouteContext) {
    // The checks read several rows: one read transaction (one WAL read lock) serves them all.
    const checked = deps.storage.read(() => checkCreate(c));
    if ("status" in checked) return checked;
    const { key, input, asset, originatorAddress, beneficiaryAddress, candidate } = checked;
    const { company, environment } = c.auth;
    // Two creates without a key collide while the first is in progress, pricing included (409 CONFLICT).
    const fingerprint = key === null ? JSON.stringify([company.id, environment, input.originatorCustomerId, asset.id, input.amount, beneficiaryAddress]) : null;
    if (fingerprint !== null) {
      if (inFlight.has(fingerprint)) throw apiError("CONFLICT", { message: "An identical create without an Idempotency-Key is in progress; send an Idempotency-Key" });
      inFlight.add(fingerprint);
    }
    try {
      return await priceAndCreate(c, input, key, asset, originatorAddress, beneficiaryAddress, candidate);
    } finally {
      if (fingerprint !== null) inFlight.delete(fingerprint);
    }
  }

  /** Everything a create checks before pricing: the answer to an Idempotency-Key used before, or what to create. */
  function checkCreate(c: RouteContext) {
    const { company, environment } = c.auth;
    const key = c.request.headers.get("idempotency-key");
    if (key !== null) {
      if (key.trim() === "" || Array.from(key).length > 255) refuse("The Idempotency-Key header must be text of 1 to 255 characters");
      const done = repo.byExternalId(company.id, environment, key);
      if (done) return idempotent(done);
    }
    const v = validateCreateTransfer(c.body, iso(c.now).slice(0, 10));
    if (!v.ok) throw apiError("VALIDATION_ERROR", { message: v.errors.join("; "), details: { validationErrors: v.errors, schemaName: SCHEMA_NAME } });
    const input = v.value;
    if (!isSupportedNetwork(input.network))
      throw apiError("VALIDATION_ERROR", { message: `network ${input.network} is not a supported network`, details: { schemaName: SCHEMA_NAME } });
    const found = findAsset(deps.catalog.assets, { asset: input.asset, network: input.network });
    if (!found) refuse(`asset ${input.asset} is not known on ${input.network}`);
    if (!found!.ok) refuse(`asset ${input.asset} is ambiguous on ${input.network}; give the asset ID`);
    const asset = (found as { ok: true; asset: PricingAsset & { defaultEnabled: boolean } }).asset;
    const errors: string[] = [];
    if (decimalsOf(input.amount) > asset.decimals) errors.push(`amount: has more decimals than ${input.asset} allows (${asset.decimals})`);
    const beneficiary = canonicalAddress(input.network, input.beneficiaryAddress);
    if (!beneficiary.ok) errors.push(`beneficiaryAddress: ${beneficiary.reason}`);
    if (errors.length) throw apiError("VALIDATION_ERROR", { message: errors.join("; "), details: { validationErrors: errors, schemaName: SCHEMA_NAME } });
    if (!deps.policy.isEnabled(company.id, environment, asset.id, asset.defaultEnabled)) refuse(`asset ${input.asset} on ${input.network} is disabled in the ${environment} environment`);
    const customer = deps.storage.stmt("SELECT status FROM customers WHERE id = ? AND company_id = ? AND environment = ?").get(input.originatorCustomerId, company.id, environment) as { status: string } | undefined;
    if (!customer) refuse("The originator customer is unknown in this environment");
    if (customer!.status !== "active") refuse("The originator customer is deactivated");
    let originatorAddress: string | null = null;
    if (input.originatorAddress !== null) {
      const o = canonicalAddress(input.network, input.originatorAddress);
      const w = o.ok ? wallets.byAddress(company.id, environment, o.address) : undefined;
      if (!w || w.customer_id !== input.originatorCustomerId) refuse("originatorAddress is not a wallet registered to the originator customer");
      originatorAddress = (o as { address: string }).address;
    }
    if (personsCountries(input.originatorPersons).length === 0) refuse("The originator has no country: give geographicAddress, countryOfResidence or countryOfRegistration");

    const candidate = {
      assetId: asset.id,
      asset: input.asset,
      network: input.network,
      amount: input.amount,
      beneficiaryPersonCount: input.beneficiaryPersons.length,
      hasOriginatorAddress: originatorAddress !== null,
    };
    // Part 1: a create naming preferredProtocol is refused unless that provider is enabled and able to carry it.
    if (input.preferredProtocol) {
      const p = deps.providers.capabilities(company.id, environment, candidate).find((x) => x.provider === input.preferredProtocol);
      if (!p || !p.ok) refuse(`preferredProtocol ${input.preferredProtocol} cannot carry the transfer: ${p && !p.ok ? p.reason : "not enabled"}`);
    }
    const beneficiaryAddress = (beneficiary as { address: string }).address;
    return { key, input, asset, originatorAddress, beneficiaryAddress, candidate };
  }

  async function priceAndCreate(
    c: RouteContext,
    input: CreateTransferInput,
    key: string | null,
    asset: PricingAsset,
    originatorAddress: string | null,
    beneficiaryAddress: string,
    candidate: import("../adapters/providers/registry.ts").TransferCandidate,
  ) {
    const { company, environment } = c.auth;
    // Price the amount in the applicable threshold's currency; nothing is created when pricing fails.
    let threshold: AppliedThreshold;
    let valuation: Valuation;
    let record: ValuationRecord | undefined;
    try {
      threshold = deps.threshold(company.id, c.now);
      if (deps.pricing) ({ valuation, record } = await deps.pricing.appraise({ companyId: company.id, environment, asset, amount: input.amount, currency: threshold.currency }));
      else valuation = await deps.price({ companyId: company.id, environment, assetId: asset.id, amount: input.amount, currency: threshold.currency });
    } catch (e) {
      if (deps.isPricingFailure(e)) throw apiError("TIMEOUT", { message: "Pricing the amount or checking the threshold timed out; retry", headers: { "Retry-After": "5" } });
      throw e;
    }
    const below = new Decimal(valuation.value).lt(threshold.amount);
    if (!below && !input.preferredProtocol) {
      const caps = deps.providers.capabilities(company.id, environment, candidate);
      if (!caps.some((x) => x.ok)) refuse(`No enabled provider is able to carry the transfer (${caps.map((x) => (x.ok ? x.provider : x.reason)).join("; ")})`);
    }
    const thresholdInfo = { amount: input.amount, asset: input.asset, threshold: threshold.amount, thresholdCurrency: threshold.currency, jurisdiction: threshold.jurisdiction, regulation: threshold.regulation };
    const n: NewTransfer = {
      id: newId("trf", c.now),
      idempotencyKey: key,
      input,
      assetCode: input.asset,
      assetId: asset.id,
      originatorAddress,
      beneficiaryAddress,
      outcome: below ? "completed" : "queued",
      thresholdInfo,
      fxRateId: valuation.fxRateId,
      ...(record ? { valuation: record } : {}),
      expiresAt: below ? null : iso(c.now + EXPIRY_MS),
    };
    {
      const out = unwrap(await askActor<{ idempotent: boolean; transfer: TransferRow; originatorName: string | null; beneficiaryName: string | null }>(deps.runtime, `customer:${input.originatorCustomerId}`, {
        type: "createTransfer",
        transfer: n,
        companyId: company.id,
        environment,
        actor: c.auth.actor,
      }));
      if (out.data.idempotent) return idempotent(out.data.transfer);
      return answerCreated(c, out.data.transfer, input, thresholdInfo, out.data.originatorName, out.data.beneficiaryName);
    }
  }

  function idempotent(t: TransferRow) {
    return { status: 200, data: { id: t.id, state: t.state, createdAt: t.created_at }, meta: { idempotent: true, message: "This Idempotency-Key was used before: the transfer it created is answered and nothing new is created" } };
  }

  function answerCreated(c: RouteContext, t: TransferRow, input: CreateTransferInput, thresholdInfo: Record<string, unknown>, originatorName: string | null, beneficiaryName: string | null) {
    const verified = wallets.byAddress(t.company_id, t.environment, t.beneficiary_address)?.verified === 1;
    // The row carries the own VASP as it was when the transfer was created (createTransfer): no second lookup.
    const vasp = t.originator_vasp_id !== null && t.originator_vasp_name !== null ? { id: t.originator_vasp_id, name: t.originator_vasp_name } : ownVasp(deps.storage, t.company_id);
    const originator: Record<string, unknown> = { address: t.originator_address, vasp };
    if (originatorName !== null) originator.name = c.pii(originatorName, maskName);
    const beneficiary: Record<string, unknown> = { address: t.beneficiary_address, verified };
    if (beneficiaryName !== null) beneficiary.name = c.pii(beneficiaryName, maskName);
    const base = { id: t.id, state: t.state, direction: t.direction, asset: t.asset, amount: t.amount, network: t.network, originator, beneficiary };
    if (t.state === "completed") {
      return {
        status: 201,
        data: { ...base, compliance: "approved", routing: "skipped", thresholdInfo, fxRateId: t.fx_rate_id, createdAt: t.created_at },
        meta: { message: `The amount is below the Travel Rule threshold (${thresholdInfo.threshold} ${thresholdInfo.thresholdCurrency}, ${thresholdInfo.jurisdiction}): the transfer is completed without a Travel Rule exchange` },
      };
    }
    return {
      status: 202,
      data: { ...base, originatorStatus: "pending", beneficiaryStatus: null, compliance: "pending", routing: "queued", createdAt: t.created_at, expiresAt: t.expires_at },
      meta: { jobId: `job_${t.id.slice(4)}`, message: `Transfer queued: screening and the Travel Rule exchange follow${input.preferredProtocol ? `, ${input.preferredProtocol} first` : ""}` },
    };
  }

  return kit.group("/api/v2/transfers", (r) =>
    r
      .get(
        "/",
        {
          summary: "List transfers, newest first",
          access: { scope: "transfers:read", permission: "transfers:view" },
          tags: ["transfers"],
          // The page and its total are read from one snapshot.
          readOnly: true,
          query: {
            direction: q.enumOf(["incoming", "outgoing"] as const),
            state: q.enumOf(TRANSFER_STATES),
            status: statusFilter,
            complianceStatus: q.enumOf(["pending", "approved", "rejected"] as const),
            protocol: q.enumOf(PROTOCOLS),
            search: q.string(200),
            limit: q.limit(100),
            cursor: q.cursor(),
          },
        },
        (c) => {
          const { company, environment } = c.auth;
          // `status` takes precedence over `complianceStatus`; `all` means no filter (Part 1).
          const status = c.query.status !== undefined ? (c.query.status === "all" ? undefined : c.query.status) : c.query.complianceStatus;
          const f = { direction: c.query.direction, state: c.query.state, status, protocol: c.query.protocol, search: c.query.search };
          const res = keysetPage<TransferRow>({
            key: deps.cursorKey,
            scope: c.auth,
            list: `transfers|${JSON.stringify(f)}`,
            cursor: c.query.cursor,
            limit: c.query.limit,
            fetch: (after, n) => repo.page(company.id, environment, f, after as [string, string] | null, n),
            position: (t) => [t.created_at, t.id],
            total: () => repo.count(company.id, environment, f),
          });
          return page(res.rows.map((t) => listItem(c, t)), res.meta);
        },
      )
      .post("/", { summary: "Create an outgoing transfer (send an Idempotency-Key)", access: { scope: "transfers:write", permission: "transfers:create" }, body: api.CreateTransfer, validate: false, tags: ["transfers"] }, create)
      .get(
        "/:id",
        {
          summary: "One transfer in detail",
          access: { scope: "transfers:read", permission: "transfers:view" },
          tags: ["transfers"],
          readOnly: true,
          query: { checksLimit: lenient(readChecksLimit, 50), checksOffset: lenient(readChecksOffset, 0) },
        },
        (c) => ok(detail(c, find(c, c.params.id), c.query.checksLimit, c.query.checksOffset)),
      )
      .patch("/:id", { summary: "Act on a transfer: accept, reject or retry", access: { scope: "transfers:write", permission: "transfers:update" }, body: api.PatchTransfer, validate: false, tags: ["transfers"] }, async (c) => {
        const t = find(c, c.params.id);
        const body = c.body;
        if (body === undefined || body === null || typeof body !== "object" || Array.isArray(body))
          throw apiError("INVALID_REQUEST", { message: "The body must be a JSON object with an action", details: { action: null, allowedActions: ["accept", "reject", "retry"] } });
        const o = await askActor<Record<string, unknown>>(deps.runtime, `transfer:${t.id}`, { type: "action", body, companyId: c.auth.company.id, environment: c.auth.environment, actor: c.auth.actor });
        const { data } = unwrap(o);
        return ok(data, (o as { meta?: Record<string, unknown> }).meta);
      }),
  );
}

